// Where a JSON text stops being JSON, as a person's editor counts it: line and column (1-based),
// not V8's character offset. Node 20 says only "at position 22"; newer lines add the line, but a
// file without a position ("Unexpected end of JSON input") still has one: its end.

/** JSON.parse's complaint about `text` as one line ending `at line L, column C`; undefined if it parses. */
export function jsonSyntaxProblem(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
    const position = /at position (\d+)/.exec(message);
    const offset = position === null ? text.length : Number(position[1]);
    // The reason without V8's own position words (and the excerpt newer lines quote), then ours.
    const reason = message
      .replace(/,? *"[\s\S]*?" is not valid JSON$/, "")
      .replace(/ in JSON at position \d+.*$/, "")
      .replace(/ at position \d+.*$/, "")
      .trim();
    const { line, column } = lineAndColumn(text, offset);
    return `${reason || "not JSON"} at line ${line}, column ${column}`;
  }
}

/** 1-based line and column of `offset` in `text` (a tab counts as one column). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}
