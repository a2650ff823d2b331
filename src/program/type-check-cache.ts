// Remembers finished type checks by content: the same program against the same declarations and
// contract (its input and output types), wrapped the same way, is never checked twice. Bounded in
// entries (least recently used goes first); only completed checks are kept, never failures.
// Keys are hashes of the content, so an entry cannot go stale: a changed catalog is another key.

import { createHash } from "node:crypto";
import type { Diagnostic } from "../contract.js";
import type { ContractDeclarations } from "./contract-declarations.js";
import type { ProgramForm } from "./program-wrapper.js";

/** Default of `TypeCheckerOptions.maxCachedChecks`. */
export const DEFAULT_MAX_CACHED_CHECKS = 256;

/** What a check's result depends on; two requests with equal parts get equal diagnostics. */
export interface CheckContent {
  readonly source: string;
  readonly declarations: string;
  readonly form: ProgramForm;
  readonly lint: boolean;
  readonly contract: ContractDeclarations;
}

/** A bounded LRU map from check content to its diagnostics. */
export class TypeCheckCache {
  readonly #maxEntries: number;
  readonly #entries = new Map<string, readonly Diagnostic[]>();
  // The declarations of a session are one long string sent with every check: hashed once.
  #declarationsHash: { readonly text: string; readonly hash: string } | undefined;

  /** `maxEntries` 0 keeps nothing. */
  constructor(maxEntries = DEFAULT_MAX_CACHED_CHECKS) {
    this.#maxEntries = maxEntries;
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** The key of `content`: `checkContentKey`, with the session's long declarations hashed once. */
  keyOf(content: CheckContent): string {
    if (this.#declarationsHash?.text !== content.declarations) {
      this.#declarationsHash = { text: content.declarations, hash: hashOf(content.declarations) };
    }
    return checkContentKey(content, this.#declarationsHash.hash);
  }

  /** A copy of the diagnostics stored under `key`, which becomes the most recently used. */
  get(key: string): Diagnostic[] | undefined {
    const found = this.#entries.get(key);
    if (found === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, found);
    return [...found];
  }

  /** Stores `diagnostics` under `key`, evicting the least recently used entry when full. */
  set(key: string, diagnostics: readonly Diagnostic[]): void {
    if (this.#maxEntries <= 0) return;
    this.#entries.delete(key);
    // Frozen: every run that hits the entry shares these objects in its warnings.
    this.#entries.set(key, Object.freeze(diagnostics.map((diagnostic) => Object.freeze({ ...diagnostic }))));
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }
}

/**
 * A hash over every part of `content`, each framed so parts cannot run together: equal keys, equal
 * diagnostics from the same checker. `declarationsHash`: the declarations' hash when the caller
 * keeps it (they are the long part), else computed.
 */
export function checkContentKey(content: CheckContent, declarationsHash = hashOf(content.declarations)): string {
  return createHash("sha256")
    .update(`${content.form}\0${content.lint ? 1 : 0}\0${declarationsHash}\0`)
    .update(`${content.contract.declarations.length}\0${content.contract.declarations}\0`)
    .update(`${content.contract.outputType ?? ""}\0`)
    .update(content.source)
    .digest("base64");
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}
