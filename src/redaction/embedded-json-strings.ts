// Secrets inside JSON string literals embedded in plain text: a program's `console.log(result)`
// prints objects as JSON, where `PASSWORD="..."` reads `PASSWORD=\"...\"` and no rule that wants
// a quote sees one. Each literal is decoded, redacted and written back as JSON; the text around
// it is left to `redactText`. Linear in the text; a literal that does not parse is left as it is.

import type { RedactedText, Redactor } from "./redactor.js";

/** A JSON string literal on one line: a quote, then non-quote characters or escapes, then a quote. */
const JSON_STRING = /"(?:[^"\\\n]|\\.)*"/g;

/**
 * `redacted` (the result of `redactor.redactText` on some text) with the secrets found inside
 * its JSON string literals, once decoded, replaced too; the same object when there were none.
 */
export function redactEmbeddedJsonStrings(redactor: Redactor, redacted: RedactedText): RedactedText {
  // Only an escaped character can hide a secret's context from the first pass.
  if (!redacted.text.includes("\\")) return redacted;
  let kinds = redacted.kinds;
  const text = redacted.text.replace(JSON_STRING, (literal) => {
    if (!literal.includes("\\")) return literal;
    let decoded: string;
    try {
      decoded = JSON.parse(literal) as string;
    } catch {
      return literal;
    }
    const inner = redactor.redactText(decoded);
    if (inner.kinds.length === 0) return literal;
    kinds = [...kinds, ...inner.kinds];
    return JSON.stringify(inner.text);
  });
  return kinds === redacted.kinds ? redacted : { text, kinds };
}
