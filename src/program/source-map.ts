// Maps positions in compiled program JavaScript back to the TypeScript the model wrote, from
// the source map esbuild produces. Only what error reporting needs: line and column lookup
// for one generated file with one source.

/** A 1-based position. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

interface Segment {
  readonly generatedColumn: number;
  readonly sourceLine: number;
  readonly sourceColumn: number;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_VALUE = new Map([...BASE64].map((char, index) => [char, index]));

/** A decoded source map that answers "where in the original is this generated position?". */
export class SourceMapLookup {
  readonly #lines: Segment[][];

  constructor(mappings: string) {
    this.#lines = decodeMappings(mappings);
  }

  /**
   * The original position for a 1-based generated position: the closest mapped segment at or
   * before the column on that line (or the line's first segment). Undefined when unmapped.
   */
  originalPosition(generated: SourcePosition): SourcePosition | undefined {
    const segments = this.#lines[generated.line - 1];
    if (segments === undefined || segments.length === 0) return undefined;
    let best = segments[0]!;
    for (const segment of segments) {
      if (segment.generatedColumn > generated.column - 1) break;
      best = segment;
    }
    return { line: best.sourceLine + 1, column: best.sourceColumn + 1 };
  }
}

function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let sourceLine = 0;
  let sourceColumn = 0;
  for (const lineText of mappings.split(";")) {
    const segments: Segment[] = [];
    let generatedColumn = 0;
    for (const segmentText of lineText.split(",")) {
      if (segmentText === "") continue;
      const fields = decodeVlq(segmentText);
      generatedColumn += fields[0] ?? 0;
      if (fields.length >= 4) {
        sourceLine += fields[2] ?? 0;
        sourceColumn += fields[3] ?? 0;
        segments.push({ generatedColumn, sourceLine, sourceColumn });
      }
    }
    lines.push(segments);
  }
  return lines;
}

function decodeVlq(text: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64_VALUE.get(char);
    if (digit === undefined) break;
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return values;
}
