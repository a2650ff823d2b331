// Credential formats the secretlint preset does not cover, each from its public definition:
// JWTs (RFC 7519: base64url of `{"` is `eyJ`), HTTP credentials (RFC 9110 §11: `Authorization`
// with a scheme, `Bearer`, `Basic` user:password), API-key headers, Stripe secret keys and
// webhook secrets (`sk_live_`, `rk_test_`, `whsec_`, per Stripe's key docs), Google API keys
// (`AIza` + 35), password assignments (`PASSWORD=...` in .env files and configs) and PEM private
// key blocks, also cut short (a truncated key still leaks). Each rule redacts the secret only.

import type { Finding, KeywordRule } from "./keyword-rule.js";
import { isPlaceholderPassword } from "./url-password.js";

/** Token68 (RFC 9110 §11.2): the shape of Bearer tokens and most API keys. */
const TOKEN68 = "[A-Za-z0-9\\-._~+/]+=*";

/**
 * Whether a value looks generated rather than written: long enough, and either mixes letters
 * with digits or is long and mixes cases. Words, identifiers and `process.env.TOKEN` do not.
 */
export function looksLikeToken(value: string, minLength = 12): boolean {
  if (value.length < minLength) return false;
  if (/^\$|^\{|^<|^%|REDACTED|^x+$|^X+$|^\*+$/.test(value)) return false;
  // A property access (`process.env.API_KEY`, `config.apiKey`): code, not a credential.
  if (/^(?:[A-Za-z_$][A-Za-z_$]*\.)+[A-Za-z_$][A-Za-z0-9_$]*$/.test(value)) return false;
  const digit = /[0-9]/.test(value);
  const letter = /[A-Za-z]/.test(value);
  if (digit && letter) return true;
  return value.length >= 24 && /[a-z]/.test(value) && /[A-Z]/.test(value) && !/^[A-Za-z]+$/.test(value);
}

/** A rule whose secret starts exactly at its keyword: one sticky regex, its first group (or all) redacted. */
function stickyRule(name: string, kind: string, keywords: readonly string[], source: string, flags = ""): KeywordRule {
  const pattern = new RegExp(source, `y${flags}`);
  return {
    name,
    keywords,
    scan(text, at, found) {
      // A keyword glued to a letter or digit before it is part of some other word.
      if (at > 0 && /[A-Za-z0-9]/.test(text[at - 1]!)) return at + 1;
      pattern.lastIndex = at;
      const match = pattern.exec(text);
      if (match === null) return at + 1;
      found.push({ start: at, end: at + match[0].length, kind });
      return at + match[0].length;
    },
  };
}

/**
 * A JWS/JWT in compact form: header and claims are both JSON objects, so both start with `eyJ`.
 * Every `eyJ` in one base64url run shares the run's end as its header's end, so the run is
 * tried once: `-eyJ-eyJ-eyJ...` cannot make the scan quadratic.
 */
export const jwtRule: KeywordRule = {
  name: "jwt",
  keywords: ["eyJ"],
  scan(text, at, found) {
    if (at > 0 && /[A-Za-z0-9]/.test(text[at - 1]!)) return at + 1;
    BASE64URL_RUN.lastIndex = at;
    BASE64URL_RUN.test(text);
    const runEnd = BASE64URL_RUN.lastIndex;
    if (text[runEnd] !== ".") return runEnd;
    JWT.lastIndex = at;
    const match = JWT.exec(text);
    if (match === null) return runEnd;
    found.push({ start: at, end: at + match[0].length, kind: "jwt" });
    return at + match[0].length;
  },
};
const BASE64URL_RUN = /[A-Za-z0-9_-]*/y;
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*(?![A-Za-z0-9_-])/y;

/** Stripe secret and restricted keys, live and test, and webhook signing secrets (publishable `pk_` keys are public). */
export const stripeKeyRule = stickyRule(
  "stripe-key",
  "stripe-key",
  ["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
  "(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,247}|whsec_[A-Za-z0-9+/=]{24,247})(?![A-Za-z0-9])",
);

/** Google Cloud API keys: `AIza` and 35 more characters. */
export const googleApiKeyRule = stickyRule(
  "google-api-key",
  "google-api-key",
  ["AIza"],
  "AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",
);

/** `Bearer <token>` anywhere (headers, curl lines, logs): the token, when it looks generated. */
export const bearerTokenRule: KeywordRule = credentialAfterScheme(
  "bearer-token",
  ["Bearer ", "bearer ", "BEARER "],
  new RegExp(`(?:Bearer|bearer|BEARER) +(${TOKEN68})`, "y"),
  (credential) => looksLikeToken(credential),
);

/** `Basic <base64>` whose base64 decodes to printable `user:password`. */
export const basicAuthRule: KeywordRule = credentialAfterScheme(
  "basic-auth",
  ["Basic ", "basic ", "BASIC "],
  /(?:Basic|basic|BASIC) +([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])/y,
  (credential) => {
    const decoded = Buffer.from(credential, "base64").toString("latin1");
    const colon = decoded.indexOf(":");
    return /^[\x20-\x7e]+$/.test(decoded) && colon > 0 && colon < decoded.length - 1;
  },
);

function credentialAfterScheme(
  kind: string,
  keywords: readonly string[],
  pattern: RegExp,
  accept: (credential: string) => boolean,
): KeywordRule {
  /** The match at `at` when its credential is accepted. */
  const acceptedAt = (text: string, at: number): RegExpExecArray | undefined => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    const credential = match?.[1];
    return match === null || credential === undefined || !accept(credential) ? undefined : match;
  };
  return {
    name: kind,
    keywords,
    scan(text, at, found) {
      if (at > 0 && /[A-Za-z]/.test(text[at - 1]!)) return at + 1;
      const match = acceptedAt(text, at);
      if (match === undefined) return at + 1;
      const end = at + match[0].length;
      found.push({ start: end - match[1]!.length, end, kind });
      return end;
    },
    // The pattern reads spaces and credential characters only, which JSON text writes as they
    // are, and stops before a character that is not one (an escape starts with `\`): it matches
    // the same credential there. The letter before is not checked: after an escape it is one.
    mayReportInJson: (json, at) => acceptedAt(json, at) !== undefined,
  };
}

/**
 * An optional quote, blanks and `:` or `=` as JSON text writes them (`\"`, `\t`): what every
 * assignment rule needs right after its name. A test that no value follows, for `mayReportInJson`.
 */
const JSON_ASSIGNMENT = /(?:\\"|')?(?: |\\t)*[:=]/y;

function assignmentFollowsInJson(json: string, at: number): boolean {
  JSON_ASSIGNMENT.lastIndex = at;
  return JSON_ASSIGNMENT.test(json);
}

/**
 * `Authorization: <scheme> <credentials>` for the schemes not handled above (`token`,
 * `Negotiate`, custom ones) and `Authorization: <credentials>` without a scheme.
 */
export const authorizationHeaderRule: KeywordRule = {
  name: "authorization-header",
  keywords: ["Authorization", "authorization", "AUTHORIZATION"],
  scan(text, at, found) {
    const pattern = AUTHORIZATION_VALUE;
    pattern.lastIndex = at + "authorization".length;
    const match = pattern.exec(text);
    if (match === null) return at + 1;
    const scheme = match[1];
    const credential = match[2]!;
    if (scheme !== undefined && /^(?:bearer|basic|digest)$/i.test(scheme)) return at + 1;
    if (!looksLikeToken(credential)) return at + 1;
    const end = pattern.lastIndex;
    found.push({ start: end - credential.length, end, kind: "authorization-header" });
    return end;
  },
  mayReportInJson: (json, at) => assignmentFollowsInJson(json, at + "authorization".length),
};
const AUTHORIZATION_VALUE = new RegExp(
  `["']?[ \\t]*[:=][ \\t]*["']?(?:([A-Za-z][A-Za-z0-9!#$%&*+.^_|~-]*) +)?(${TOKEN68})`,
  "y",
);

const API_KEY_HEADERS = ["api-key", "auth-token", "private-token"];

/** `X-Api-Key: ...`, `Api-Key`, `X-Auth-Token`, `Private-Token` (GitLab) and the like, as headers or map entries. */
export const apiKeyHeaderRule: KeywordRule = {
  name: "api-key-header",
  keywords: API_KEY_HEADERS.flatMap(caseVariants),
  scan(text, at, found) {
    const name = API_KEY_HEADERS.find((header) => text.slice(at, at + header.length).toLowerCase() === header);
    if (name === undefined) return at + 1;
    const pattern = HEADER_VALUE;
    pattern.lastIndex = at + name.length;
    const match = pattern.exec(text);
    const value = match?.[1];
    if (value === undefined || !looksLikeToken(value, 16)) return at + 1;
    const end = pattern.lastIndex;
    found.push({ start: end - value.length, end, kind: "api-key-header" });
    return end;
  },
  mayReportInJson(json, at) {
    const name = API_KEY_HEADERS.find((header) => json.slice(at, at + header.length).toLowerCase() === header);
    return name !== undefined && assignmentFollowsInJson(json, at + name.length);
  },
};
const HEADER_VALUE = new RegExp(`["']?[ \\t]*[:=][ \\t]*["']?(${TOKEN68})`, "y");

/** `lower-case`, `Title-Case` and `UPPER-CASE` forms of a header name. */
function caseVariants(name: string): string[] {
  const title = name.replace(/(^|-)([a-z])/g, (_whole, joint: string, letter: string) => joint + letter.toUpperCase());
  return [...new Set([name, title, name.toUpperCase()])];
}

/**
 * `PASSWORD=...`, `db_password: "..."`, `"password": "..."`: the value, when it is not a
 * placeholder and looks like a password rather than code (a letter and a digit or a symbol,
 * no call or property access).
 */
export const passwordAssignmentRule: KeywordRule = {
  name: "password",
  keywords: ["password", "Password", "PASSWORD", "passwd", "PASSWD", "Passwd"],
  scan(text, at, found) {
    const pattern = PASSWORD_VALUE;
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match === null) return at + 1;
    const value = match[1] ?? match[2] ?? match[3]!;
    if (isPlaceholderPassword(value) || !looksLikePassword(value)) return at + 1;
    const end = pattern.lastIndex - (match[3] === undefined ? 1 : 0);
    found.push({ start: end - value.length, end, kind: "password" });
    return end;
  },
  mayReportInJson(json, at) {
    PASSWORD_NAME.lastIndex = at;
    return PASSWORD_NAME.test(json) && assignmentFollowsInJson(json, PASSWORD_NAME.lastIndex);
  },
};
/** The name part of PASSWORD_VALUE, which JSON text writes as it is. */
const PASSWORD_NAME = /(?:password|Password|PASSWORD|passwd|PASSWD|Passwd)[A-Za-z0-9_]{0,20}/y;
const PASSWORD_VALUE =
  /(?:password|Password|PASSWORD|passwd|PASSWD|Passwd)[A-Za-z0-9_]{0,20}["']?[ \t]*(?:=|:(?!:))[ \t]*(?:"([^"\s\\]{4,128})"|'([^'\s\\]{4,128})'|([A-Za-z0-9!#$%&*+\-/=?@^_~]{4,128})(?![^\s"',;)]))/y;

function looksLikePassword(value: string): boolean {
  if (!/[A-Za-z]/.test(value)) return false;
  if (!/[0-9!#$%&*+\-/=?@^~]/.test(value)) return false;
  // Code, not a value: a call, a property access on an identifier, a template.
  return !/[()]|^[A-Za-z_$][\w$]*\.[A-Za-z_$]|\$\{|^[A-Z_]+$/.test(value);
}

/**
 * A PEM private key block (`-----BEGIN ... PRIVATE KEY-----`, also `ENCRYPTED`, OpenSSH and
 * PGP), from its header to its END line; a block cut short (a truncated log or preview) is
 * redacted up to where its base64 body stops.
 */
export const privateKeyBlockRule: KeywordRule = {
  name: "private-key-block",
  keywords: ["PRIVATE KEY"],
  scan(text, at, found) {
    const begin = text.lastIndexOf("-----BEGIN", at);
    if (begin === -1 || at - begin > 48 || !/^-----BEGIN[ A-Z0-9]*$/.test(text.slice(begin, at))) return at + 1;
    HEADER_END.lastIndex = at + "PRIVATE KEY".length;
    if (!HEADER_END.test(text)) return at + 1;
    const bodyStart = HEADER_END.lastIndex;
    BODY.lastIndex = bodyStart;
    BODY.test(text);
    let end = BODY.lastIndex;
    // Key material: a base64 line (40 characters and more) soon after the header. Prose that
    // merely names the header has none; the first 40 characters of a key are its ASN.1 prefix.
    if (!/[A-Za-z0-9+/]{40}/.test(text.slice(bodyStart, Math.min(end, bodyStart + 400)))) return at + 1;
    FOOTER.lastIndex = end;
    if (FOOTER.test(text)) end = FOOTER.lastIndex;
    else while (end > begin && /\s/.test(text[end - 1]!)) end--;
    found.push({ start: begin, end, kind: "private-key" });
    return end;
  },
};
const HEADER_END = /(?: BLOCK)?-----/y;
// Base64, line breaks (also JSON-escaped ones) and the `Proc-Type:`/`DEK-Info:` headers of encrypted keys.
const BODY = /(?:[A-Za-z0-9+/=\s\\:,.]|-(?!----))*/y;
const FOOTER = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/y;

/** Every rule of this file, in the order findings of equal position are kept. */
export const CREDENTIAL_FORMAT_RULES: readonly KeywordRule[] = [
  privateKeyBlockRule,
  jwtRule,
  stripeKeyRule,
  googleApiKeyRule,
  bearerTokenRule,
  basicAuthRule,
  authorizationHeaderRule,
  apiKeyHeaderRule,
  passwordAssignmentRule,
];

export type { Finding };
