// The Redactor: built once per session from its options, it replaces every secret in a text or
// a JSON value with `[REDACTED:<kind>]`. One keyword pass finds the known secret values and the
// keywords of every credential rule (secretlint's preset, then the formats it lacks); user
// patterns run after it. It reports kinds and JSON paths, never the values it removed.

import type { JsonValue } from "../contract.js";
import { CREDENTIAL_FORMAT_RULES } from "./credential-formats.js";
import type { Finding, KeywordRule } from "./keyword-rule.js";
import { KeywordScanner, type LiteralValue } from "./keyword-scanner.js";
import { type KnownSecret, literalFormsOf } from "./known-secrets.js";
import { secretlintKeywordRules } from "./secretlint-rules.js";
import { urlPasswordRule } from "./url-password.js";
import { type CompiledPattern, compilePatterns, findPatterns, type RedactionPattern } from "./user-patterns.js";
import { findWrappedBase64, originalIndex } from "./wrapped-base64.js";

/** What a session redacts; `redaction: false` on the session turns all of it off. */
export interface RedactionOptions {
  /**
   * Literal secret values (at least 4 characters), redacted wherever they appear, also
   * URL-encoded, JSON-escaped and in base64 or base64url (inside longer base64 text too).
   * A plain string is of kind `secret`.
   */
  readonly secrets?: readonly (string | KnownSecret)[];
  /** Extra regular expressions; a named group `secret` narrows the replacement. Kind `pattern` by default. */
  readonly patterns?: readonly (string | RegExp | RedactionPattern)[];
  /**
   * Detect common credential formats: cloud and code-hosting tokens, chat, payment and LLM
   * provider keys, JWTs, PEM private keys, passwords in URLs and assignments, Authorization
   * and API-key headers. Default true.
   */
  readonly credentialFormats?: boolean;
}

/** One replaced value: its kind and where it was (`$.rows[2].token`, `logs[3]`); never the value. */
export interface Redaction {
  readonly kind: string;
  readonly path: string;
}

/** A redacted text and the kinds of its replacements, in order. */
export interface RedactedText {
  readonly text: string;
  readonly kinds: readonly string[];
}

/** A redacted JSON value with its JSON text and what was replaced. */
export interface RedactedJson {
  readonly value: JsonValue | string;
  readonly json: string;
  readonly redactions: readonly Redaction[];
}

const NO_KINDS: readonly string[] = Object.freeze([]);
const NO_REDACTIONS: readonly Redaction[] = Object.freeze([]);

/**
 * Kinds that a more specific rule may also report for the same characters (`Bearer ghp_...`
 * is a Bearer token and a GitHub token): on a tie the specific kind names the replacement.
 */
const GENERIC_KINDS: ReadonlySet<string> = new Set([
  "bearer-token",
  "basic-auth",
  "authorization-header",
  "api-key-header",
  "password",
  "url-password",
  "pattern",
]);

/** Replaces secrets in texts and JSON values; see the module comment. */
export class Redactor {
  #builtScanner: KeywordScanner | undefined;
  readonly #literals: readonly LiteralValue[];
  readonly #formats: boolean;
  readonly #patterns: readonly CompiledPattern[];
  /** Whether a known secret has base64 forms, which a wrapped base64 text may break over two lines. */
  readonly #joinsWrappedBase64: boolean;

  /**
   * Compiles the options. Throws SwitchyardError OPTION_INVALID for a secret shorter than 4
   * characters, a pattern that does not compile or matches the empty string, or a bad kind.
   */
  constructor(options: RedactionOptions = {}) {
    const literals = literalFormsOf(options.secrets ?? []);
    this.#literals = literals;
    this.#formats = options.credentialFormats !== false;
    this.#patterns = compilePatterns(options.patterns ?? []);
    this.#joinsWrappedBase64 = literals.some((literal) => literal.base64);
  }

  /**
   * Builds the keyword index now rather than at the first text redacted (a few ms the first time
   * in a process, its code cold): a session's warm-up calls it, so its constructor does not pay it.
   */
  prepare(): void {
    void this.#scanner;
  }

  get #scanner(): KeywordScanner {
    if (this.#builtScanner !== undefined) return this.#builtScanner;
    // Sessions without secrets of their own share one scanner: scans are synchronous and reset its state.
    if (this.#literals.length === 0 && this.#formats)
      this.#builtScanner = sharedScanner ??= new KeywordScanner(credentialRules());
    else this.#builtScanner = new KeywordScanner(this.#formats ? credentialRules() : [], this.#literals);
    return this.#builtScanner;
  }

  /**
   * False when `text` certainly holds no secret: no keyword of any rule and no known value (in
   * any form) occurs in it. Always true when the session has patterns of its own. One pass;
   * for plain text (JSON text goes through `redactJson`, which reads its escapes).
   */
  mayHaveSecrets(text: string): boolean {
    return this.#patterns.length > 0 || this.#scanner.mayMatch(text) || this.#mayMatchWrapped(text, "\n");
  }

  /** Whether a known secret's base64 form occurs in a wrapped base64 block of `text` once its lines are joined. */
  #mayMatchWrapped(text: string, newline: "\n" | "\\n"): boolean {
    if (!this.#joinsWrappedBase64) return false;
    const blocks = findWrappedBase64(text, newline);
    // One pass over every block; a line break between two blocks keeps a match from spanning them.
    return blocks.length > 0 && this.#scanner.mayMatch(blocks.map((block) => block.joined).join("\n"));
  }

  /**
   * Whether `text` ends with the start (4 characters or more, not all of it) of a listed secret,
   * in any of its forms: a text cut at a length limit inside the secret keeps that start, which
   * no rule recognises on its own.
   */
  endsWithSecretStart(text: string): boolean {
    for (const { text: secret } of this.#literals) {
      for (let length = Math.min(secret.length - 1, text.length); length >= MIN_SECRET_START; length--) {
        if (text.endsWith(secret.slice(0, length))) return true;
      }
    }
    return false;
  }

  /** `text` with every secret replaced by `[REDACTED:<kind>]`; the same string when none was found. */
  redactText(text: string): RedactedText {
    const found = this.findSecrets(text);
    if (found.length === 0) return { text, kinds: NO_KINDS };
    return replaceFindings(text, found);
  }

  /**
   * Where `redactText` would replace something in `text`: character ranges and kinds, unordered,
   * possibly overlapping. For a caller that must cut a text without cutting a secret in two.
   */
  findSecrets(text: string): Finding[] {
    // No keyword and no listed form is shorter than 3 characters.
    if (text.length < 3 && this.#patterns.length === 0) return [];
    if (text.length === 0) return [];
    const found: Finding[] = [];
    this.#scanner.scan(text, found);
    if (this.#joinsWrappedBase64) this.#scanWrapped(text, found);
    if (this.#patterns.length > 0) findPatterns(this.#patterns, text, found);
    return found;
  }

  /**
   * `value` with every string in it (object keys too) redacted, copied only where something
   * changed, and the path of each replacement under `root`. Values other than JSON data
   * (functions, class instances) are left as they are.
   */
  redactValue<T>(value: T, root = "$"): { readonly value: T; readonly redactions: readonly Redaction[] } {
    if (typeof value === "object" && value !== null && !this.#mayHaveSecretsIn(value))
      return { value, redactions: NO_REDACTIONS };
    return this.#walkRoot(value, root);
  }

  /** Findings in the joined lines of each wrapped base64 block, mapped back over the line breaks. */
  #scanWrapped(text: string, found: Finding[]): void {
    for (const block of findWrappedBase64(text, "\n")) {
      const inner: Finding[] = [];
      this.#scanner.scan(block.joined, inner);
      for (const { start, end, kind } of inner) {
        found.push({ start: originalIndex(block, start), end: originalIndex(block, end - 1) + 1, kind });
      }
    }
  }

  #walkRoot<T>(value: T, root: string): { readonly value: T; readonly redactions: readonly Redaction[] } {
    const redactions: Redaction[] = [];
    const redacted = this.#walk(value, [], root, redactions);
    return { value: redacted as T, redactions: redactions.length === 0 ? NO_REDACTIONS : redactions };
  }

  /**
   * Redacts a value serialized by JSON.stringify. Undefined when there is nothing to redact,
   * decided from the text itself in one pass when the session has no user patterns (the
   * common case: no parse, no walk; see KeywordScanner.mayFindInJson). A value too deeply
   * nested to walk is redacted as text and becomes a string.
   */
  redactJson(json: string): RedactedJson | undefined {
    if (!this.#mayFindInJson(json)) return undefined;
    let result: { readonly value: unknown; readonly redactions: readonly Redaction[] };
    try {
      // The text was checked above: walk the parsed value without serializing it again.
      result = this.#walkRoot(JSON.parse(json) as JsonValue, "$");
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      const text = this.redactText(json);
      if (text.kinds.length === 0) return undefined;
      return {
        value: text.text,
        json: JSON.stringify(text.text),
        redactions: text.kinds.map((kind) => ({ kind, path: "$" })),
      };
    }
    if (result.redactions.length === 0) return undefined;
    return { value: result.value as JsonValue, json: JSON.stringify(result.value), redactions: result.redactions };
  }

  /** Whether the walk could replace anything in the value JSON.stringify wrote as `json`. */
  #mayFindInJson(json: string): boolean {
    return this.#patterns.length > 0 || this.#scanner.mayFindInJson(json) || this.#mayMatchWrapped(json, "\\n");
  }

  /** `#mayFindInJson` of a value's JSON text: one pass instead of one scan per string. */
  #mayHaveSecretsIn(value: object): boolean {
    if (this.#patterns.length > 0) return true;
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      // A cycle or a BigInt: the walk decides, string by string.
      return true;
    }
    return json === undefined || this.#mayFindInJson(json);
  }

  #walk(value: unknown, path: (string | number)[], root: string, redactions: Redaction[]): unknown {
    if (typeof value === "string") {
      const redacted = this.redactText(value);
      for (const kind of redacted.kinds) redactions.push({ kind, path: formatPath(root, path) });
      return redacted.text;
    }
    if (typeof value === "number") {
      // A listed secret of digits (a card, a PIN) written as a JSON number: redacted as a string.
      const found = Number.isFinite(value) ? this.findSecrets(String(value)) : [];
      if (found.length === 0) return value;
      const kind = found[0]!.kind;
      redactions.push({ kind, path: formatPath(root, path) });
      return `[REDACTED:${kind}]`;
    }
    if (typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        path.push(index);
        const item = this.#walk(value[index], path, root, redactions);
        path.pop();
        if (item !== value[index]) (copy ??= [...value])[index] = item;
      }
      return copy ?? value;
    }
    const prototype = Object.getPrototypeOf(value) as unknown;
    // A class instance (a URL, a headers object in a tool error's details) is shown as its JSON:
    // that is what is walked, and what replaces it when something in it was redacted.
    if (prototype !== Object.prototype && prototype !== null) {
      const data = asJsonData(value);
      if (data === undefined) return value;
      const walked = this.#walk(data, path, root, redactions);
      return walked === data ? value : walked;
    }
    const walked: [string, unknown][] = [];
    let changed = false;
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const redactedKey = this.redactText(key);
      path.push(redactedKey.text);
      for (const kind of redactedKey.kinds) redactions.push({ kind, path: formatPath(root, path) });
      let redactedItem = this.#walk(item, path, root, redactions);
      if (redactedItem === item && (typeof item === "string" || typeof item === "number")) {
        const kind = this.#keyedSecret(key, item);
        if (kind !== undefined) {
          redactedItem = `[REDACTED:${kind}]`;
          redactions.push({ kind, path: formatPath(root, path) });
        }
      }
      path.pop();
      walked.push([redactedKey.text, redactedItem]);
      if (redactedKey.text !== key || redactedItem !== item) changed = true;
    }
    if (!changed) return value;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of walked) {
      // Two keys that differed only by a secret now read the same: keep both.
      let name = key;
      for (let suffix = 2; Object.hasOwn(copy, name); suffix++) name = `${key}#${suffix}`;
      // defineProperty: a `__proto__` key must stay a key, not become the prototype.
      Object.defineProperty(copy, name, { value: item, enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }

  /**
   * The kind of secret `value` is under `key` (`"password": "hunter2"`, `"aws_secret_access_key":
   * ...`): rules that need the name beside the value see the two as JSON writes them. Undefined
   * when the key holds no keyword, or nothing found reaches into the value.
   */
  #keyedSecret(key: string, value: string | number): string | undefined {
    if (!this.#scanner.mayMatch(key)) return undefined;
    const name = JSON.stringify(key);
    const pair = `${name}:${JSON.stringify(value)}`;
    const found = this.findSecrets(pair).find((finding) => finding.end > name.length + 1);
    return found?.kind;
  }
}

/** `value` as JSON data (what JSON.stringify shows of it), or undefined when it has none (a cycle, a BigInt, a function). */
function asJsonData(value: object): unknown {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? undefined : (JSON.parse(json) as unknown);
  } catch {
    return undefined;
  }
}

let sharedScanner: KeywordScanner | undefined;

/** Fewest characters of a listed secret's start `endsWithSecretStart` looks for (a listed secret has 4 or more). */
const MIN_SECRET_START = 4;

function credentialRules(): KeywordRule[] {
  return [...secretlintKeywordRules(), ...CREDENTIAL_FORMAT_RULES, urlPasswordRule];
}

/** `text` with the merged findings replaced, and their kinds. */
function replaceFindings(text: string, found: Finding[]): RedactedText {
  found.sort(
    (a, b) =>
      a.start - b.start || b.end - a.end || Number(GENERIC_KINDS.has(a.kind)) - Number(GENERIC_KINDS.has(b.kind)),
  );
  const parts: string[] = [];
  const kinds: string[] = [];
  let written = 0;
  let index = 0;
  while (index < found.length) {
    const first = found[index]!;
    let end = first.end;
    // Overlapping findings become one replacement, named after the first (the widest, the most specific).
    while (++index < found.length && found[index]!.start < end) end = Math.max(end, found[index]!.end);
    parts.push(text.slice(written, first.start), `[REDACTED:${first.kind}]`);
    kinds.push(first.kind);
    written = end;
  }
  parts.push(text.slice(written));
  return { text: parts.join(""), kinds };
}

/** `$.rows[2].token`, `$["a key"]`: a JSON path built from already redacted keys. */
function formatPath(root: string, path: readonly (string | number)[]): string {
  let text = root;
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) text += `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** Counts redactions by kind: `{ "github-token": 2, jwt: 1 }`. */
export function countByKind(redactions: readonly { readonly kind: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { kind } of redactions) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/**
 * A key filter for observed types: true for a key in which `redactor` finds nothing to redact.
 * Undefined without a redactor (every key may be recorded). Observed keys reach declarations,
 * run_program's description and the observed-types file, so a secret used as a key must not.
 */
export function readableKeyFilter(redactor: Redactor | undefined): ((key: string) => boolean) | undefined {
  return redactor === undefined ? undefined : (key) => redactor.redactText(key).kinds.length === 0;
}

/** At most this many distinct tool names are remembered by `toolNameRedaction` (names repeat; data-built ones may not). */
const MAX_REMEMBERED_NAMES = 1_024;

/**
 * A tool-name redaction for the trace (`TraceBus.redactToolNames`): `redactor`'s text redaction,
 * remembered per name so the catalog's own names cost one lookup. Undefined without a redactor.
 */
export function toolNameRedaction(redactor: Redactor | undefined): ((name: string) => string) | undefined {
  if (redactor === undefined) return undefined;
  const remembered = new Map<string, string>();
  return (name) => {
    const known = remembered.get(name);
    if (known !== undefined) return known;
    const redacted = redactor.redactText(name).text;
    if (remembered.size < MAX_REMEMBERED_NAMES) remembered.set(name, redacted);
    return redacted;
  };
}
