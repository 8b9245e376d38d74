/**
 * A local stand-in for the Voyage AI HTTP API (the real one is unreachable from the build machines). Speaks the
 * same wire format for POST /v1/embeddings and /v1/rerank, answers with deterministic vectors (a hashed bag of
 * words, L2-normalised) and can be scripted to misbehave: delays, bursts of HTTP errors, dropped connections.
 *
 *   const fake = await startFakeVoyage();          // fake.baseUrl = http://127.0.0.1:<port>/v1
 *   fake.script('embeddings', { status: 429 }, { status: 429 });   // next two calls fail, then normal answers
 *   ...
 *   await fake.close();
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

export const FAKE_VOYAGE_KEY = 'test-voyage-key';

/** One scripted behaviour for the next request to an endpoint. */
export interface Fault {
  /** Wait this long before answering (or before the other fault). */
  delayMs?: number;
  /** Answer with this HTTP status and an error body. */
  status?: number;
  /** Seconds for a Retry-After header (with `status`). */
  retryAfter?: number;
  /** Destroy the socket without answering. */
  drop?: boolean;
}

export type Endpoint = 'embeddings' | 'rerank';

export interface RecordedRequest {
  endpoint: Endpoint;
  body: any;
  authorization?: string;
  at: number;
}

export interface FakeVoyage {
  baseUrl: string;
  requests: RecordedRequest[];
  /** Queue faults for the next requests to `endpoint` (consumed in order, one per request). */
  script(endpoint: Endpoint, ...faults: Fault[]): void;
  /** A fault applied to every request to `endpoint` (after scripted ones run out); null to clear. */
  always(endpoint: Endpoint, fault: Fault | null): void;
  /** Highest number of requests being handled at once. */
  readonly maxConcurrent: number;
  readonly inFlight: number;
  reset(): void;
  close(): Promise<void>;
}

const WORD = /[A-Za-z]+|\d+/g;

/** Deterministic "embedding": hashed bag of lower-cased words (and camelCase parts), L2-normalised. */
export function fakeEmbedding(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  const words = (text.replace(/([a-z])([A-Z])/g, '$1 $2').match(WORD) ?? []).map((w) => w.toLowerCase());
  for (const w of words) {
    const h = createHash('sha256').update(w).digest();
    const i = h.readUInt32LE(0) % dims;
    v[i]! += h[4]! & 1 ? 1 : -1;
  }
  let s = 0;
  for (const x of v) s += x * x;
  if (s === 0) {
    v[0] = 1;
    return v;
  }
  const n = Math.sqrt(s);
  return v.map((x) => x / n);
}

function cos(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export async function startFakeVoyage(opts: { dims?: number } = {}): Promise<FakeVoyage> {
  const defaultDims = opts.dims ?? 1024;
  const queues: Record<Endpoint, Fault[]> = { embeddings: [], rerank: [] };
  const standing: Record<Endpoint, Fault | null> = { embeddings: null, rerank: null };
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let maxConcurrent = 0;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = req.url ?? '';
    const endpoint: Endpoint | null = url === '/v1/embeddings' ? 'embeddings' : url === '/v1/rerank' ? 'rerank' : null;
    if (req.method !== 'POST' || !endpoint) return send(res, 404, { detail: 'Not Found' });
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, { detail: 'Invalid JSON body' });
    }
    requests.push({ endpoint, body, authorization: req.headers.authorization, at: Date.now() });

    const fault = queues[endpoint].shift() ?? standing[endpoint];
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.drop) {
      req.socket.destroy();
      return;
    }
    if (fault?.status) {
      const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
      return send(res, fault.status, { detail: `scripted fault ${fault.status}` }, headers);
    }
    if (req.headers.authorization !== `Bearer ${FAKE_VOYAGE_KEY}`) {
      return send(res, 401, { detail: 'Provided API key is invalid.' });
    }

    if (endpoint === 'embeddings') {
      const input: unknown = body.input;
      const texts = typeof input === 'string' ? [input] : input;
      if (!Array.isArray(texts) || texts.length === 0 || texts.some((t) => typeof t !== 'string'))
        return send(res, 400, { detail: 'input must be a string or a non-empty list of strings' });
      if (texts.length > 1000) return send(res, 400, { detail: 'The max allowed batch size is 1000' });
      if (body.input_type != null && body.input_type !== 'query' && body.input_type !== 'document')
        return send(res, 400, { detail: 'input_type must be query or document' });
      const dims = body.output_dimension ?? defaultDims;
      const totalTokens = texts.reduce((s: number, t: string) => s + Math.ceil(t.length / 4), 0);
      if (totalTokens > 120_000) return send(res, 400, { detail: 'Request to model voyage-code-3 failed. The max allowed tokens per submitted batch is 120000.' });
      return send(res, 200, {
        object: 'list',
        data: texts.map((t: string, index: number) => ({ object: 'embedding', embedding: fakeEmbedding(t, dims), index })),
        model: body.model,
        usage: { total_tokens: totalTokens },
      });
    }

    // rerank
    const { query, documents } = body;
    if (typeof query !== 'string' || !Array.isArray(documents) || documents.length === 0)
      return send(res, 400, { detail: 'query must be a string and documents a non-empty list' });
    const q = fakeEmbedding(query, 256);
    const scored = documents.map((d: string, index: number) => ({ index, relevance_score: (cos(q, fakeEmbedding(d, 256)) + 1) / 2 }));
    scored.sort((a, b) => b.relevance_score - a.relevance_score);
    const topK = body.top_k ?? scored.length;
    return send(res, 200, {
      object: 'list',
      data: scored.slice(0, topK),
      model: body.model,
      usage: { total_tokens: Math.ceil((query.length + documents.join(' ').length) / 4) },
    });
  };

  const server: Server = createServer((req, res) => {
    inFlight++;
    maxConcurrent = Math.max(maxConcurrent, inFlight);
    let done = false;
    const end = () => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.on('close', end);
    handle(req, res).catch((e) => {
      end();
      if (!res.headersSent) send(res, 500, { detail: String(e) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (endpoint, ...faults) => queues[endpoint].push(...faults),
    always: (endpoint, fault) => {
      standing[endpoint] = fault;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    get inFlight() {
      return inFlight;
    },
    reset() {
      queues.embeddings.length = 0;
      queues.rerank.length = 0;
      standing.embeddings = null;
      standing.rerank = null;
      requests.length = 0;
      maxConcurrent = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
