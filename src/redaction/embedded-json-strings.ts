// Secrets inside JSON string literals embedded in plain text: a program's `console.log(result)`
// prints objects as JSON, where `PASSWORD="..."` reads `PASSWORD=\"...\"` and no rule that wants
// a quote sees one. Each literal is decoded, redacted and written back as JSON; the text around
// it is left to `redactText`. Linear in the text; a literal that does not parse is left as it is.

import type { RedactedText, Redactor } from "./redactor.js";

/**
 * A JSON string literal's opening quote and body on one line, read greedily from `lastIndex`; the
 * literal is whole when a quote follows. Backtracking could find no earlier end: the body takes a
 * quote only as the second character of an escape.
 */
const JSON_STRING_BODY = /"(?:[^"\\\n]|\\.)*/y;

/**
 * `redacted` (the result of `redactor.redactText` on some text) with the secrets found inside
 * its JSON string literals, once decoded, replaced too; the same object when there were none.
 */
export function redactEmbeddedJsonStrings(redactor: Redactor, redacted: RedactedText): RedactedText {
  const source = redacted.text;
  // Only an escaped character can hide a secret's context from the first pass.
  if (!source.includes("\\")) return redacted;
  let kinds = redacted.kinds;
  const parts: string[] = [];
  let written = 0;
  for (let quote = source.indexOf('"'); quote !== -1; ) {
    JSON_STRING_BODY.lastIndex = quote;
    const stop = quote + JSON_STRING_BODY.exec(source)![0].length;
    if (source.charCodeAt(stop) !== 0x22) {
      // No literal starts inside an unterminated one either: each would read the same body to
      // the same stop (a global regex retrying from every quote made this quadratic).
      quote = source.indexOf('"', stop);
      continue;
    }
    const literal = source.slice(quote, stop + 1);
    const inner = literal.includes("\\") ? redactLiteral(redactor, literal) : undefined;
    if (inner !== undefined) {
      parts.push(source.slice(written, quote), inner.text);
      kinds = [...kinds, ...inner.kinds];
      written = stop + 1;
    }
    quote = source.indexOf('"', stop + 1);
  }
  if (kinds === redacted.kinds) return redacted;
  parts.push(source.slice(written));
  return { text: parts.join(""), kinds };
}

/** A JSON string literal with the secrets of its decoded text replaced; undefined when none were, or it does not parse. */
function redactLiteral(redactor: Redactor, literal: string): RedactedText | undefined {
  let decoded: string;
  try {
    decoded = JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
  const inner = redactor.redactText(decoded);
  return inner.kinds.length === 0 ? undefined : { text: JSON.stringify(inner.text), kinds: inner.kinds };
}
