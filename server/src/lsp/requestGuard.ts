/**
 * What every request handler runs under: `$/cancelRequest` honoured between steps (→ RequestCancelled) and any
 * failure answered as a ResponseError with a clear message (never a crash).
 */
import { CancellationToken, ErrorCodes, LSPErrorCodes, ResponseError } from 'vscode-languageserver';

/** Thrown by checkCancel/untilCancelled; answered as RequestCancelled. */
export class Cancelled extends Error {}

function cancelledError(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'Request cancelled');
}

export function checkCancel(token: CancellationToken): void {
  if (token.isCancellationRequested) throw new Cancelled();
}

/** Lets already-received messages (a `$/cancelRequest` right behind the request) be processed. */
function tick(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** Resolves with `p`, or rejects with Cancelled as soon as the token fires. */
export function untilCancelled<T>(p: Promise<T>, token: CancellationToken): Promise<T> {
  if (token.isCancellationRequested) return Promise.reject(new Cancelled());
  return new Promise<T>((resolveP, reject) => {
    const sub = token.onCancellationRequested(() => {
      sub.dispose();
      reject(new Cancelled());
    });
    p.then(
      (v) => {
        sub.dispose();
        resolveP(v);
      },
      (e) => {
        sub.dispose();
        reject(e);
      },
    );
  });
}

/** Maps any failure to a ResponseError with a clear message (never a crash). */
export function toResponseError(e: unknown): ResponseError<void> {
  if (e instanceof ResponseError) return e;
  if (e instanceof Cancelled) return cancelledError();
  const err = e as Error;
  const message = err?.message ?? String(e);
  switch (err?.name) {
    case 'QueryError':
      return new ResponseError(ErrorCodes.InvalidParams, message);
    case 'IndexLockedError':
    case 'ConfigError':
    case 'EngineError':
      return new ResponseError(LSPErrorCodes.RequestFailed, message);
    default:
      return new ResponseError(LSPErrorCodes.RequestFailed, `Quarry: ${message}`);
  }
}

/** Runs a handler with cancellation and error mapping. */
export const guarded =
  <P, R>(fn: (params: P, token: CancellationToken) => Promise<R>) =>
  async (...args: unknown[]): Promise<R | ResponseError<void>> => {
    // vscode-jsonrpc calls a handler with (token) alone when the request has no params; LSP handlers get
    // (params, token, workDoneProgress, resultProgress).
    const isToken = (a: unknown) => CancellationToken.is(a);
    const token = (args.find(isToken) as CancellationToken | undefined) ?? CancellationToken.None;
    const params = (isToken(args[0]) ? undefined : args[0]) as P;
    try {
      await tick();
      checkCancel(token);
      const result = await fn(params, token);
      checkCancel(token);
      return result;
    } catch (e) {
      return toResponseError(e);
    }
  };
