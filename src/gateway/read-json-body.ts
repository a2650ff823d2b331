// Reads one HTTP request's JSON body under a deadline, a size cap and the gateway's shared budget
// of body bytes in flight, before anything is reserved for the request: a client that sends
// headers and then nothing (or a trickle) holds a socket until the deadline, never a session
// place. It answers a failure as data (the status to send and why), never by throwing.

import type { IncomingMessage } from "node:http";
import type { BodyBudget } from "./body-budget.js";

/** What `readJsonBody` gives: the parsed body, or the HTTP status to refuse the request with. */
export type JsonBodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: 400 | 408 | 413 | 503; readonly message: string };

/** Limits of `readJsonBody`. */
export interface JsonBodyLimits {
  /** Bytes of body accepted; a larger one is refused with 413 as soon as it is seen. */
  readonly maxBytes: number;
  /** Time for the whole body to arrive, in ms, from the call; past it, 408. */
  readonly timeoutMs: number;
  /** Bytes of all bodies being read at once; a chunk that would pass it ends this read with 503. */
  readonly budget?: BodyBudget | undefined;
}

/**
 * Reads and parses `request`'s body. Resolves `{ ok: false, status }` with 413 when the body is
 * (or announces itself as) over `maxBytes`, 503 when its next chunk would pass the shared
 * `budget`, 408 when it is not whole within `timeoutMs`, and 400 when it is not JSON; the caller
 * answers and closes the connection. Whatever it took of the budget is given back when it
 * resolves, however it ends. Never rejects.
 */
export function readJsonBody(request: IncomingMessage, limits: JsonBodyLimits): Promise<JsonBodyResult> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    return Promise.resolve(tooLarge(limits.maxBytes));
  }
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let bytes = 0;
    let taken = 0;
    let settled = false;
    const finish = (result: JsonBodyResult): void => {
      if (settled) return;
      settled = true;
      limits.budget?.give(taken);
      chunks = [];
      clearTimeout(timer);
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
      request.off("aborted", onError);
      resolve(result);
    };
    const timer = setTimeout(
      () =>
        finish({ ok: false, status: 408, message: `The request body did not arrive within ${limits.timeoutMs} ms.` }),
      limits.timeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) finish(tooLarge(limits.maxBytes));
      else if (limits.budget !== undefined && !limits.budget.take(chunk.length)) finish(busy(limits.budget));
      else {
        taken += chunk.length;
        chunks.push(chunk);
      }
    };
    const onEnd = (): void => {
      try {
        finish({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      } catch {
        finish({ ok: false, status: 400, message: "The request body is not JSON." });
      }
    };
    const onError = (): void => finish({ ok: false, status: 400, message: "The request was aborted." });
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
    request.on("aborted", onError);
  });
}

function busy(budget: BodyBudget): JsonBodyResult {
  return {
    ok: false,
    status: 503,
    message: `The server is holding ${budget.maxBytes} bytes of request bodies from all clients, its limit; retry shortly.`,
  };
}

function tooLarge(maxBytes: number): JsonBodyResult {
  return { ok: false, status: 413, message: `The request body is larger than ${maxBytes} bytes.` };
}
