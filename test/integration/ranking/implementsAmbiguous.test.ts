import assert from 'node:assert/strict';
import type { CodeMatch } from '../../../server/src/engine/api/results';
import { join } from 'node:path';
import { ChunkStore } from '../../../server/src/engine/store/chunkStore';
import { resolveGeneration, vectorDir } from '../../../server/src/engine/store/generations';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';
import { indexedWorkspace, writtenWorkspace } from '../../support/indexedWorkspace';

/**
 * "What implements X" for a name the project declares more than once as an interface: Go packages `lines` and
 * `bytesio` each declare a `Reader` with different methods, and a TypeScript project declares `Handler` in two
 * modules. The implementations of each are listed, each declaration with them, and a warning names the places; a
 * qualified name asks for one of them.
 */
const GO: Record<string, string> = {
  'go.mod': 'module example.com/two\n\ngo 1.19\n',
  'lines/reader.go': `package lines

// Reader returns the next line of text, or "" at the end.
type Reader interface {
\tRead() string
}
`,
  'bytesio/reader.go': `package bytesio

// Reader fills p with the next bytes.
type Reader interface {
\tRead(p []byte) (int, error)
}
`,
  'sources/sources.go': `package sources

// LineSource yields the lines it was given, one by one.
type LineSource struct{ lines []string }

func (s *LineSource) Read() string {
\tif len(s.lines) == 0 {
\t\treturn ""
\t}
\tl := s.lines[0]
\ts.lines = s.lines[1:]
\treturn l
}

// ByteSource yields the bytes it was given.
type ByteSource struct{ data []byte }

func (s *ByteSource) Read(p []byte) (int, error) {
\tn := copy(p, s.data)
\ts.data = s.data[n:]
\treturn n, nil
}
`,
};

const TS: Record<string, string> = {
  'src/http/handler.ts': `/** Answers one HTTP request. */
export interface Handler {
  handle(req: Request): Promise<Response>;
}
`,
  'src/jobs/handler.ts': `/** Runs one queued job. */
export interface Handler {
  run(job: { id: string; payload: unknown }): Promise<void>;
}
`,
  'src/http/static.ts': `import type { Handler } from './handler';

/** Serves files from a folder. */
export class StaticFiles implements Handler {
  constructor(private readonly root: string) {}
  async handle(req: Request): Promise<Response> {
    return new Response(\`\${this.root}\${new URL(req.url).pathname}\`);
  }
}
`,
  'src/jobs/email.ts': `import type { Handler } from './handler';

/** Sends the e-mail a job describes. */
export class EmailJob implements Handler {
  async run(job: { id: string; payload: unknown }): Promise<void> {
    console.log('sending', job.id, job.payload);
  }
}
`,
};

const show = (ms: CodeMatch[]) => ms.map((m, i) => `${i + 1}. ${m.file.path} ${m.content.symbol}\n   ${m.explanation.join('\n   ')}`).join('\n');
const implementation = (m: CodeMatch) => m.explanation.some((l) => l.includes(": listed with the implementations") || l.includes(": kept with its implementations"));

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`"what implements X" for a name declared in two places (${cfg.label})`, function () {
    this.timeout(120_000);
    const go = indexedWorkspace(writtenWorkspace('quarry-impl-two-go-', GO), cfg.open);
    const ts = indexedWorkspace(writtenWorkspace('quarry-impl-two-ts-', TS), cfg.open);

    it('Go: the implicit rows of a name declared in two packages carry the package', async () => {
      const quarryDir = join(go.root(), '.quarry');
      const { store } = await ChunkStore.open(resolveGeneration(quarryDir).generation.dir, { vectorDir: vectorDir(quarryDir) });
      try {
        assert.deepEqual((await store.conformancesOf('lines.Reader')).map((r) => r.typeName), ['LineSource']);
        assert.deepEqual((await store.conformancesOf('bytesio.Reader')).map((r) => r.typeName), ['ByteSource']);
        assert.deepEqual(await store.conformancesOf('Reader'), []);
      } finally {
        await store.close();
      }
    });

    it('Go "what implements Reader": both implementers and both interfaces first, a warning names both packages', async () => {
      const res = await go.engine().search('what implements Reader', { limit: 10, explain: true });
      const ms = res.matches;
      const first = ms.slice(0, 4);
      assert.deepEqual(new Set(first.map((m) => `${m.file.path}#${m.content.symbol}`)), new Set(['sources/sources.go#LineSource', 'sources/sources.go#ByteSource', 'lines/reader.go#Reader', 'bytesio/reader.go#Reader']), show(ms));
      assert.ok(first.every(implementation), show(ms));
      assert.notEqual(ms[0]!.content.symbol, 'Reader', show(ms));
      const warning = res.warnings.find((w) => w.startsWith('Reader is declared in 2 places'));
      assert.ok(warning, res.warnings.join('\n'));
      assert.match(warning, /lines\/reader\.go/);
      assert.match(warning, /bytesio\/reader\.go/);
      assert.match(warning, /what implements (lines|bytesio)\.Reader/);
    });

    it('Go "what implements bytesio.Reader": ByteSource only, no warning', async () => {
      const res = await go.engine().search('what implements bytesio.Reader', { limit: 10, explain: true });
      assert.equal(res.matches[0]?.content.symbol, 'ByteSource', show(res.matches));
      const line = res.matches.find((m) => m.content.symbol === 'LineSource');
      assert.ok(!line || !implementation(line), show(res.matches));
      assert.ok(!res.warnings.some((w) => w.includes('declared in')), res.warnings.join('\n'));
    });

    it('TypeScript "what implements Handler": both classes and both interfaces first, with the warning', async () => {
      const res = await ts.engine().search('what implements Handler', { limit: 10, explain: true });
      const first = res.matches.slice(0, 4).map((m) => `${m.file.path}#${m.content.symbol}`);
      assert.deepEqual(new Set(first), new Set(['src/http/static.ts#StaticFiles', 'src/jobs/email.ts#EmailJob', 'src/http/handler.ts#Handler', 'src/jobs/handler.ts#Handler']), show(res.matches));
      assert.ok(res.warnings.some((w) => /^Handler is declared in 2 places \(src\/(http|jobs)\/handler\.ts, src\/(http|jobs)\/handler\.ts\)/.test(w)), res.warnings.join('\n'));
    });
  });
}
