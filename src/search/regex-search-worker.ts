// Runs regex searches on a worker thread with a hard deadline, so no pattern a model or a
// program sends can hold the host's event loop: the host only checks the pattern and posts it;
// a search that outlives its deadline is stopped by terminating the worker (V8 interrupts a
// running regular expression) and answers PATTERN_INVALID. The catalog's texts are posted once
// per catalog version. Searches run one at a time, so a slow one never costs another its budget.
// Why not a linear-time engine on the calling thread: over the texts of 1,000 tools the issue-14
// pattern took 63 ms with native `re2` (built from source by node-gyp in 5 minutes here, 21 MB),
// 3.4 s with `re2-wasm` and 53 s with `re2js`; linear, but still past a 50 ms budget.
// Synchronous callers (`searchNow`, behind `yard.searchTools` and `searchAndLoad`) use the same
// worker: the calling thread waits on shared memory (Atomics.wait) for the search to start and
// then at most the deadline, and reads the hits with receiveMessageOnPort; a slow pattern costs
// it the deadline, never the pattern's own time.

import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { SearchDocument, SearchHit } from "./bm25-index.js";
import { checkPattern, haystacksOf, type RegexSearchResult } from "./regex-search.js";

/** Documents copied to the worker per event-loop turn. */
const CATALOG_SLICE = 20;

/** Longest wait for the worker to start a search (thread start, catalog copy), in milliseconds. */
const WORKER_START_TIMEOUT_MS = 10_000;

/** Default deadline of one search on the worker, from the moment it starts matching, in milliseconds. */
export const REGEX_WORKER_DEADLINE_MS = 250;

// Plain JavaScript, evaluated as the worker: no imports, so it runs the same from source and from dist.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
let documents = [];
parentPort.on("message", (message) => {
  if (message.type === "catalog") { documents = message.documents; return; }
  if (message.type === "more") { documents.push(...message.documents); return; }
  // A synchronous caller waits on \`signal\` (1: started, 2: done) and reads the hits from \`port\`.
  const signal = message.signal;
  if (signal !== undefined) { Atomics.store(signal, 0, 1); Atomics.notify(signal, 0); }
  else parentPort.postMessage({ id: message.id, started: true });
  const regex = new RegExp(message.pattern, message.flags);
  const hits = [];
  documents.forEach(([id, fields], ordinal) => {
    let score = 0;
    for (const [text, weight] of fields) if (regex.test(text)) score += weight;
    if (score > 0) hits.push({ id, score, ordinal });
  });
  hits.sort((left, right) => right.score - left.score || left.ordinal - right.ordinal);
  const answer = { id: message.id, hits: hits.slice(0, message.limit).map(({ id, score }) => ({ id, score })) };
  if (signal === undefined) { parentPort.postMessage(answer); return; }
  message.port.postMessage(answer);
  message.port.close();
  Atomics.store(signal, 0, 2);
  Atomics.notify(signal, 0);
});
`;

interface Pending {
  readonly id: number;
  /** Called when the worker begins the search: the deadline counts from there. */
  readonly started: () => void;
  readonly resolve: (hits: SearchHit[]) => void;
  readonly reject: (error: Error) => void;
}

/** A worker thread that runs regex searches over one catalog; see the module comment. */
export class RegexSearchWorker {
  readonly #deadlineMs: number;
  #worker: Worker | undefined;
  #sentVersion: number | undefined;
  #pending: Pending | undefined;
  #nextId = 0;
  #queue: Promise<unknown> = Promise.resolve();

  /** `deadlineMs` bounds one search's time on the worker (default 250). */
  constructor(options: { deadlineMs?: number } = {}) {
    this.#deadlineMs = options.deadlineMs ?? REGEX_WORKER_DEADLINE_MS;
  }

  /**
   * Searches `documents` (the catalog at `version`) for `pattern`, case-insensitively, scoring
   * like `searchByRegex`. Resolves `PATTERN_INVALID` for a pattern `checkPattern` refuses, or one
   * that runs past the deadline; never rejects for a pattern.
   */
  search(
    documents: () => Iterable<SearchDocument>,
    version: number,
    pattern: string,
    limit: number,
  ): Promise<RegexSearchResult> {
    const checked = checkPattern(pattern);
    if (!checked.ok) return Promise.resolve(checked);
    const run = this.#queue.then(() => this.#run(documents, version, checked.regex, limit));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * `search` for a synchronous caller: the calling thread blocks until the worker has started
   * the search (thread start and catalog copy included, up to 10 s) and then for at most the
   * deadline, whatever the pattern. Returns `PATTERN_INVALID` as `search` does. Use one worker
   * either for `search` or for `searchNow`: their catalog copies are not coordinated.
   */
  searchNow(documents: Iterable<SearchDocument>, version: number, pattern: string, limit: number): RegexSearchResult {
    const checked = checkPattern(pattern);
    if (!checked.ok) return checked;
    const worker = this.#start();
    if (this.#sentVersion !== version) {
      // One message: the caller waits anyway, and the worker takes it while it waits.
      worker.postMessage({ type: "catalog", documents: [...documents].map(documentTexts) });
      this.#sentVersion = version;
    }
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    const id = this.#nextId++;
    const { source, flags } = checked.regex;
    const request = {
      type: "search",
      id,
      pattern: source,
      flags,
      limit: Math.max(0, Math.floor(limit)),
      signal,
      port: port2,
    };
    worker.postMessage(request, [port2]);
    try {
      Atomics.wait(signal, 0, 0, WORKER_START_TIMEOUT_MS);
      if (Atomics.load(signal, 0) === 1) Atomics.wait(signal, 0, 1, this.#deadlineMs);
      const answer = Atomics.load(signal, 0) === 2 ? receiveMessageOnPort(port1) : undefined;
      if (answer !== undefined) return { ok: true, hits: (answer.message as { hits: SearchHit[] }).hits };
      const started = Atomics.load(signal, 0) === 1;
      // Mid-match (or never started): only terminating the worker stops the pattern.
      this.#stopNow();
      const message = started
        ? `The pattern took over ${this.#deadlineMs} ms to run over the catalog; send a simpler pattern.`
        : "The pattern could not be run: the search worker did not start.";
      return { ok: false, error: { code: "PATTERN_INVALID", message } };
    } finally {
      port1.close();
    }
  }

  /** Stops the worker; a later search starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#sentVersion = undefined;
    await worker?.terminate();
  }

  async #run(
    documents: () => Iterable<SearchDocument>,
    version: number,
    regex: RegExp,
    limit: number,
  ): Promise<RegexSearchResult> {
    const worker = this.#start();
    if (this.#sentVersion !== version) {
      // Copying a large catalog to the worker is done in slices, yielding between them, so
      // even that stays far below the event-loop budget.
      const all = [...documents()];
      worker.postMessage({ type: "catalog", documents: [] });
      for (let start = 0; start < all.length; start += CATALOG_SLICE) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        const texts = all.slice(start, start + CATALOG_SLICE).map(documentTexts);
        worker.postMessage({ type: "more", documents: texts });
      }
      this.#sentVersion = version;
    }
    const id = this.#nextId++;
    let timer: NodeJS.Timeout | undefined;
    try {
      const hits = await new Promise<SearchHit[]>((resolve, reject) => {
        // Starting a worker and copying the catalog can be slow on a loaded machine; only the
        // match itself is held to the deadline, the rest to a generous bound.
        timer = setTimeout(() => reject(new Error("the search worker did not start")), WORKER_START_TIMEOUT_MS);
        const started = (): void => {
          clearTimeout(timer);
          timer = setTimeout(() => reject(new Error("deadline")), this.#deadlineMs);
        };
        this.#pending = { id, started, resolve, reject };
        const { source: pattern, flags } = regex;
        worker.postMessage({ type: "search", id, pattern, flags, limit: Math.max(0, Math.floor(limit)) });
      });
      return { ok: true, hits };
    } catch (error) {
      // The worker may be mid-match: only terminating it stops the pattern.
      await this.close();
      const reason =
        error instanceof Error && error.message === "deadline"
          ? `The pattern took over ${this.#deadlineMs} ms to run over the catalog; send a simpler pattern.`
          : `The pattern could not be run: ${error instanceof Error ? error.message : String(error)}.`;
      return { ok: false, error: { code: "PATTERN_INVALID", message: reason } };
    } finally {
      clearTimeout(timer);
      this.#pending = undefined;
    }
  }

  /** Terminates the worker without waiting: V8 interrupts its match at once. */
  #stopNow(): void {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#sentVersion = undefined;
    void worker?.terminate();
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    // An idle search worker must not keep the host process alive.
    worker.unref();
    worker.on("message", (message: { id: number; started?: true; hits?: SearchHit[] }) => {
      if (this.#pending?.id !== message.id) return;
      if (message.started === true) this.#pending.started();
      else this.#pending.resolve(message.hits ?? []);
    });
    worker.on("error", (error) => this.#pending?.reject(error));
    worker.on("exit", () => {
      if (this.#worker === worker) {
        this.#worker = undefined;
        this.#sentVersion = undefined;
      }
      this.#pending?.reject(new Error("the search worker stopped"));
    });
    this.#worker = worker;
    return worker;
  }
}

/** A document as the worker holds it: its id and its weighted texts. */
function documentTexts(document: SearchDocument): [string, [string, number][]] {
  return [document.id, haystacksOf(document).map(({ text, weight }) => [text, weight])];
}
