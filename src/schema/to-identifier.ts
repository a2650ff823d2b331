// The TypeScript identifier a name part is written as in declarations and programs: the tool
// names' namespaces and local names, and the names of generated types. Deterministic, so the
// same name always maps to the same identifier; it never fails, whatever the input.

// Words a member of `tools` may not be called as written: JavaScript reserved words, and
// `then`, which would make `tools` (or a namespace) a thenable that `await` unwraps.
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false " +
    "finally for function if import in instanceof new null return super switch this throw true try " +
    "typeof var void while with yield let static implements interface package private protected " +
    "public await arguments eval then constructor prototype __proto__"
  ).split(" "),
);

/**
 * Maps a name part to a valid TypeScript identifier, deterministically: invalid characters
 * become `_`, a leading digit gets a `_` prefix, a reserved word gets a `_` suffix.
 */
export function toIdentifier(part: string): string {
  let identifier = part.replace(/[^A-Za-z0-9_$]/g, "_");
  if (/^[0-9]/.test(identifier)) identifier = `_${identifier}`;
  if (RESERVED.has(identifier)) identifier = `${identifier}_`;
  return identifier;
}
