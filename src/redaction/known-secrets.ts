// Known secret values (the config's `${env:NAME}` values, the session's `redaction.secrets`)
// and the forms they take in transit: URL-encoded (a query string; `%2F` and `%2f` alike),
// JSON-escaped, and base64 or base64url, also inside a longer base64 text such as
// `Basic base64(user:token)`, where the value's encoding depends on its byte offset. Each form
// is matched literally; wrapped base64 is joined first (see wrapped-base64.ts).

import { SwitchyardError } from "../errors.js";
import type { LiteralValue } from "./keyword-scanner.js";

/** A secret value and the kind its replacement names (default `secret`). */
export interface KnownSecret {
  readonly value: string;
  readonly kind?: string;
}

/** Shortest listed secret: anything shorter would be redacted all over ordinary text. */
export const MIN_SECRET_LENGTH = 4;

/** Shortest secret whose base64 forms are matched: a shorter core would occur in any long base64 text. */
const MIN_BASE64_SECRET_BYTES = 6;

const KIND_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** Checks a kind name: letters, digits and `_ . : -`, at most 64 characters. Throws OPTION_INVALID. */
export function checkKind(kind: string, where: string): string {
  if (typeof kind !== "string" || !KIND_PATTERN.test(kind)) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `${where}: a kind is 1 to 64 letters, digits, "_", ".", ":" or "-", starting with a letter or digit; got ${JSON.stringify(kind)}.`,
    );
  }
  return kind;
}

/**
 * Every literal form of every secret, with its kind. Throws SwitchyardError OPTION_INVALID for
 * a value that is not a string of at least MIN_SECRET_LENGTH characters, or a malformed kind.
 */
export function literalFormsOf(secrets: readonly (string | KnownSecret)[]): LiteralValue[] {
  const forms: LiteralValue[] = [];
  secrets.forEach((secret, index) => {
    const where = `redaction.secrets[${index}]`;
    const { value, kind } = typeof secret === "string" ? { value: secret, kind: undefined } : secret;
    if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${where}: a secret must be a string of at least ${MIN_SECRET_LENGTH} characters (a shorter one would be redacted all over ordinary text).`,
      );
    }
    const named = kind === undefined ? "secret" : checkKind(kind, where);
    const base64 = new Set(base64Forms(value));
    for (const text of encodedForms(value)) forms.push({ text, kind: named, base64: base64.has(text) });
  });
  return forms;
}

/**
 * The value and its URL-encoded (upper- and lower-case hex: RFC 3986 §2.1 makes them equal, and
 * Python's `quote` and many clients differ), JSON-escaped and base64 forms, without duplicates.
 */
export function encodedForms(value: string): string[] {
  const forms = new Set<string>([value]);
  // `+` for spaces (application/x-www-form-urlencoded).
  for (const encoded of [encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]) {
    forms.add(encoded);
    forms.add(encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  }
  forms.add(JSON.stringify(value).slice(1, -1));
  for (const form of base64Forms(value)) forms.add(form);
  return [...forms];
}

/** The base64 and base64url cores of the value; none for a value too short to tell apart. */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length < MIN_BASE64_SECRET_BYTES) return [];
  return base64Cores(bytes).flatMap((core) => [core, core.replaceAll("+", "-").replaceAll("/", "_")]);
}

/**
 * The base64 characters that depend on `bytes` alone, for each of the three offsets the value
 * can have inside a longer encoded text. A character covers 6 bits; those mixing in bits of
 * the neighbouring bytes (at most one at each end) differ from text to text and are left out.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    cores.push(encoded.slice(first, last));
  }
  return cores;
}
