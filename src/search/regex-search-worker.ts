// Runs regex searches on a worker thread with a hard deadline, so no pattern a model or a
// program sends can hold the host's event loop: the host only checks the pattern and posts it;
// a search that outlives its deadline is stopped by terminating the worker (V8 interrupts a
// running regular expression) and answers PATTERN_INVALID. The catalog's texts are posted once
// per catalog version. Searches run one at a time, so a slow one never costs another its budget.
// Why not a linear-time engine on the calling thread: over the texts of 1,000 tools the issue-14
// pattern took 63 ms with native `re2` (built from source by node-gyp in 5 minutes here, 21 MB),
// 3.4 s with `re2-wasm` and 53 s with `re2js`; linear, but still past a 50 ms budget.

import { Worker } from "node:worker_threads";
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
  parentPort.postMessage({ id: message.id, started: true });
  const regex = new RegExp(message.pattern, "i");
  const hits = [];
  documents.forEach(([id, fields], ordinal) => {
    let score = 0;
    for (const [text, weight] of fields) if (regex.test(text)) score += weight;
    if (score > 0) hits.push({ id, score, ordinal });
  });
  hits.sort((left, right) => right.score - left.score || left.ordinal - right.ordinal);
  parentPort.postMessage({ id: message.id, hits: hits.slice(0, message.limit).map(({ id, score }) => ({ id, score })) });
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
    const run = this.#queue.then(() => this.#run(documents, version, pattern, limit));
    this.#queue = run.catch(() => undefined);
    return run;
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
    pattern: string,
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
        const texts = all
          .slice(start, start + CATALOG_SLICE)
          .map((document) => [document.id, haystacksOf(document).map(({ text, weight }) => [text, weight])]);
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
        worker.postMessage({ type: "search", id, pattern, limit: Math.max(0, Math.floor(limit)) });
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
