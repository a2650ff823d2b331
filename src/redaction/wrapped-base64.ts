// Base64 text wrapped over several lines (the `base64` command breaks at 76 columns, PEM and
// openssl at 64), joined back into one run so a known secret's base64 form that a line break
// cuts in two is still found. Only the joining: the caller scans the joined text and maps what
// it finds back with `originalIndex`. Linear in the text; a block is never read twice.

/** One wrapped base64 block: its lines joined, and where it lies in the text it came from. */
export interface WrappedBase64Block {
  /** The base64 characters of the block, without the line breaks. */
  readonly joined: string;
  /** The position, in the original text, of each line's first character. */
  readonly lineStarts: readonly number[];
  /** The position, in `joined`, of each line's first character. */
  readonly joinedStarts: readonly number[];
}

/** Shortest run before a line break that counts as wrapped base64: shorter ones are ordinary words. */
export const MIN_WRAPPED_LINE_CHARS = 16;

/**
 * The wrapped base64 blocks of `text`: a run of at least MIN_WRAPPED_LINE_CHARS base64
 * characters ending at a line break, then one or more lines of base64 characters. `newline` is
 * how a break is written: `\n` in plain text, the two characters `\n` in JSON text; a `\r`
 * before it (`\r\n`, or its escape) is part of the break.
 */
export function findWrappedBase64(text: string, newline: "\n" | "\\n"): WrappedBase64Block[] {
  const blocks: WrappedBase64Block[] = [];
  const carriage = newline === "\n" ? "\r" : "\\r";
  let searchFrom = 0;
  for (let at = text.indexOf(newline, searchFrom); at !== -1; at = text.indexOf(newline, searchFrom)) {
    searchFrom = at + newline.length;
    let lineEnd = text.endsWith(carriage, at) ? at - carriage.length : at;
    const firstStart = runStart(text, lineEnd);
    if (lineEnd - firstStart < MIN_WRAPPED_LINE_CHARS) continue;
    const lineStarts = [firstStart];
    const pieces = [text.slice(firstStart, lineEnd)];
    let next = at + newline.length;
    for (;;) {
      const end = runEnd(text, next);
      if (end === next) break;
      lineStarts.push(next);
      pieces.push(text.slice(next, end));
      lineEnd = end;
      // Another line follows only when the run reaches a break.
      const breakAt = text.startsWith(carriage, end) ? end + carriage.length : end;
      if (!text.startsWith(newline, breakAt)) break;
      next = breakAt + newline.length;
    }
    if (pieces.length < 2) continue;
    searchFrom = lineEnd;
    const joinedStarts: number[] = [];
    let length = 0;
    for (const piece of pieces) {
      joinedStarts.push(length);
      length += piece.length;
    }
    blocks.push({ joined: pieces.join(""), lineStarts, joinedStarts });
  }
  return blocks;
}

/** The position in the original text of the character at `index` of `block.joined`. */
export function originalIndex(block: WrappedBase64Block, index: number): number {
  let line = block.joinedStarts.length - 1;
  while (line > 0 && block.joinedStarts[line]! > index) line--;
  return block.lineStarts[line]! + (index - block.joinedStarts[line]!);
}

function isBase64Char(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2f ||
    code === 0x3d
  );
}

/** Where the run of base64 characters that ends at `end` starts. */
function runStart(text: string, end: number): number {
  let start = end;
  while (start > 0 && isBase64Char(text.charCodeAt(start - 1))) start--;
  return start;
}

/** Where the run of base64 characters that starts at `start` ends. */
function runEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && isBase64Char(text.charCodeAt(end))) end++;
  return end;
}
