// Passwords in URLs (`scheme://user:password@host`, RFC 3986 §3.2.1) for every scheme:
// redis, amqp, smtp, git as well as the http and database URLs the secretlint rules know.
// Only the password is replaced, so the model still reads which host and user it was.
// Refuses placeholders (`${PASSWORD}`, `<password>`, `****`) so documentation stays readable.

import type { KeywordRule } from "./keyword-rule.js";

/** Longest authority (`user:password@host:port`) examined after `://`. */
const MAX_AUTHORITY_CHARS = 512;

/**
 * The password of the URL whose `://` is at `at`: the characters between the first `:` of
 * its userinfo and the last `@` before the host ends. Undefined when there is none.
 */
export function passwordRangeInUrl(text: string, at: number): { start: number; end: number } | undefined {
  const from = at + 3;
  const limit = Math.min(text.length, from + MAX_AUTHORITY_CHARS);
  let atSign = -1;
  for (let index = from; index < limit; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x40) atSign = index;
    else if (endsAuthority(code)) break;
  }
  if (atSign === -1) return undefined;
  const colon = text.indexOf(":", from);
  if (colon === -1 || colon + 1 >= atSign) return undefined;
  return { start: colon + 1, end: atSign };
}

/**
 * For a `://` at `at` in JSON text (JSON.stringify's output): false when `passwordRangeInUrl`,
 * run on the decoded string there, certainly finds no password: no `:` then, at least one
 * character later, an `@` before the authority ends. Reads each escape as what it decodes to:
 * `\"`, `\\`, `\n` and the other control characters end an authority; a lone surrogate
 * (`\ud800`) does not.
 */
export function mayHaveUserinfoInJson(json: string, at: number): boolean {
  const limit = json.length;
  let index = at + 3;
  // Positions in the decoded string, counted from `://`.
  let colon = -1;
  let atSign = -1;
  for (let decoded = 0; decoded < MAX_AUTHORITY_CHARS && index < limit; decoded++) {
    let code = json.charCodeAt(index);
    let width = 1;
    if (code === 0x5c) {
      // JSON.stringify writes `\uXXXX` for control characters and lone surrogates only.
      if (json[index + 1] !== "u") break;
      code = Number.parseInt(json.slice(index + 2, index + 6), 16);
      width = 6;
      if (Number.isNaN(code)) return true;
    } else if (code === 0x22) {
      // The string ends.
      break;
    }
    if (code === 0x40) atSign = decoded;
    else if (code === 0x3a && colon === -1) colon = decoded;
    else if (endsAuthority(code)) break;
    index += width;
  }
  return colon !== -1 && colon + 1 < atSign;
}

/** `/ ? #` end an authority (RFC 3986); so do whitespace, quotes and the brackets text puts around URLs. */
function endsAuthority(code: number): boolean {
  return (
    code <= 0x20 ||
    code === 0x2f || // /
    code === 0x3f || // ?
    code === 0x23 || // #
    code === 0x22 || // "
    code === 0x27 || // '
    code === 0x60 || // `
    code === 0x3c || // <
    code === 0x3e || // >
    code === 0x5c || // \
    code === 0x7b || // {
    code === 0x7d || // }
    code === 0x7c || // |
    code === 0x5b || // [
    code === 0x5d || // ]
    code === 0x7f
  );
}

const PLACEHOLDER_PASSWORDS = new Set([
  "password",
  "passwd",
  "pass",
  "pwd",
  "secret",
  "changeme",
  "yourpassword",
  "your_password",
  "your-password",
  "mypassword",
  "my_password",
  "example",
  "redacted",
]);

/** A password in documentation rather than a credential: a variable, a bracketed name, a repeated mask character. */
export function isPlaceholderPassword(password: string): boolean {
  if (password.length < 4) return true;
  if (/^[$%{<[(]/.test(password)) return true;
  if (/^(.)\1+$/.test(password)) return true;
  if (password.includes("REDACTED")) return true;
  return PLACEHOLDER_PASSWORDS.has(password.toLowerCase());
}

/** Finds `scheme://user:password@` and redacts the password as `url-password`. */
export const urlPasswordRule: KeywordRule = {
  name: "url-password",
  keywords: ["://"],
  mayReportInJson: mayHaveUserinfoInJson,
  scan(text, at, found) {
    // A scheme is a letter followed by letters, digits, `+`, `-` or `.` (RFC 3986 §3.1).
    if (at === 0 || !/[A-Za-z0-9+.-]/.test(text[at - 1]!)) return at + 1;
    const password = passwordRangeInUrl(text, at);
    if (password === undefined) return at + 1;
    if (!isPlaceholderPassword(text.slice(password.start, password.end)))
      found.push({ start: password.start, end: password.end, kind: "url-password" });
    return at + 1;
  },
};
