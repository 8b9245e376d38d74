import assert from 'node:assert/strict';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';
import { indexedWorkspace, writtenWorkspace } from '../../support/indexedWorkspace';

/**
 * "What implements X" when nothing in the index implements X (an interface only extended, or declared for the
 * library's users to implement): X's definition and the interfaces that extend it come first, with a warning, not the
 * functions that merely take an X.
 */
const FILES: Record<string, string> = {
  'src/codec.ts': `/** Turns values into bytes and back; implemented by the application. */
export interface Codec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

/** A codec that can also work on a stream of chunks. */
export interface StreamingCodec<T> extends Codec<T> {
  encodeStream(values: AsyncIterable<T>): AsyncIterable<Uint8Array>;
}
`,
  'src/transport.ts': `/** Sends frames to a peer. */
export interface Transport {
  send(frame: Uint8Array): Promise<void>;
  close(): void;
}

export class TcpTransport implements Transport {
  constructor(private readonly socket: { write(b: Uint8Array, cb: () => void): void; end(): void }) {}
  send(frame: Uint8Array): Promise<void> {
    return new Promise((resolve) => this.socket.write(frame, resolve));
  }
  close(): void {
    this.socket.end();
  }
}
`,
  'src/pipeline.ts': `import type { Codec } from './codec';

/** Encodes every message of a batch with the codec, then frames it with its length. */
export function encodeBatch<T>(codec: Codec<T>, messages: T[]): Uint8Array[] {
  return messages.map((m) => {
    const body = codec.encode(m);
    const framed = new Uint8Array(body.length + 4);
    new DataView(framed.buffer).setUint32(0, body.length);
    framed.set(body, 4);
    return framed;
  });
}

/** Decodes length-framed messages with the codec; a truncated frame is an error. */
export function decodeBatch<T>(codec: Codec<T>, frames: Uint8Array[]): T[] {
  return frames.map((f) => {
    const length = new DataView(f.buffer, f.byteOffset).getUint32(0);
    if (f.length < length + 4) throw new Error('truncated frame');
    return codec.decode(f.subarray(4, 4 + length));
  });
}

/** Checks that a codec gives back what it was given for a sample value. */
export function roundTrips<T>(codec: Codec<T>, sample: T): boolean {
  return JSON.stringify(codec.decode(codec.encode(sample))) === JSON.stringify(sample);
}
`,
};

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`"what implements X" when nothing implements X (${cfg.label})`, function () {
    this.timeout(120_000);
    const ws = indexedWorkspace(writtenWorkspace('quarry-implements-none-', FILES), cfg.open);

    for (const q of ['what implements Codec', 'classes that implement Codec', 'Codec implementations']) {
      it(`"${q}": the definition and the interface that extends it first, with a warning`, async () => {
        const res = await ws.engine().search(q, { limit: 10, includeTests: false, explain: true });
        const symbols = res.matches.map((m) => m.content.symbol);
        assert.deepEqual(new Set(symbols.slice(0, 2)), new Set(['Codec', 'StreamingCodec']), symbols.join(', '));
        assert.ok(res.warnings.some((w) => /Nothing in the index implements Codec; listed first: its definition and the interface that extends it/.test(w)), res.warnings.join('\n'));
        const sub = res.matches.find((m) => m.content.symbol === 'StreamingCodec')!;
        assert.ok(sub.explanation.some((l) => l.includes('extends Codec, which nothing in the index implements')), sub.explanation.join('\n'));
      });
    }

    it('an interface nothing extends or implements: its definition first, with the warning', async () => {
      const res = await ws.engine().search('what implements StreamingCodec', { limit: 10, includeTests: false });
      assert.equal(res.matches[0]?.content.symbol, 'StreamingCodec');
      assert.ok(res.warnings.some((w) => /Nothing in the index implements StreamingCodec; listed first: its definition\./.test(w)), res.warnings.join('\n'));
    });

    it('a name the index neither declares nor implements (a library\'s interface): a warning that the results are text matches', async () => {
      const res = await ws.engine().search('what implements SliceValue', { limit: 10, includeTests: false });
      assert.ok(res.warnings.some((w) => w === 'No declaration or implementation of SliceValue was found in the files searched; the results are text matches.'), res.warnings.join('\n'));
      const lower = await ws.engine().search('retry policy implementations', { limit: 10, includeTests: false });
      assert.ok(!lower.warnings.some((w) => w.includes('No declaration or implementation')), lower.warnings.join('\n'));
    });

    it('an interface with an implementation: the implementation first, no warning', async () => {
      const res = await ws.engine().search('what implements Transport', { limit: 10, includeTests: false });
      assert.equal(res.matches[0]?.content.symbol, 'TcpTransport');
      assert.ok(!res.warnings.some((w) => /Nothing in the index implements/.test(w)), res.warnings.join('\n'));
    });
  });
}
