// Reads JSON text (as JSON.stringify writes it) string by string, for positions met in
// increasing order: the decoded string a position is in, and where the position falls in it.
// Each string is decoded once and each position is located from the previous one, so a pass
// over the whole text stays linear. Refuses positions inside an escape sequence: no character
// of the decoded string starts there.

/** A position of the JSON text seen in its decoded string. */
export interface DecodedPosition {
  /** The decoded string (the same object for every position in one string). */
  readonly text: string;
  /** The position's index in `text`. */
  readonly at: number;
  /** True for the first position returned in this string. */
  readonly first: boolean;
  /** True when the string is an object's key (a `:` follows it): its value may be a secret the key names. */
  readonly isKey: boolean;
}

/** See the module comment. */
export class JsonStringCursor {
  readonly #json: string;
  /** Where the current string's closing quote is in the JSON text; -1 before the first string. */
  #close = -1;
  #decoded = "";
  /** A position of the current string known to start a character, and its decoded index. */
  #from = 0;
  #fromDecoded = 0;
  /** Whether a position of the current string has been returned. */
  #returned = false;

  constructor(json: string) {
    this.#json = json;
  }

  /**
   * The decoded string around `at`, a position inside a string of the JSON text that is not
   * before the previous one; undefined when `at` is inside an escape sequence (`\n`, `\u00e9`).
   * Throws SyntaxError when the text around `at` is not a JSON string.
   */
  locate(at: number): DecodedPosition | undefined {
    const json = this.#json;
    if (at > this.#close) {
      // Inside a string, the nearest unescaped quote before a position opens it: every quote in it is escaped.
      let open = json.lastIndexOf('"', at - 1);
      while (open > 0 && isEscaped(json, open)) open = json.lastIndexOf('"', open - 1);
      let close = json.indexOf('"', at);
      while (close !== -1 && isEscaped(json, close)) close = json.indexOf('"', close + 1);
      if (open === -1 || close === -1) throw new SyntaxError("not inside a JSON string");
      this.#close = close;
      this.#decoded = JSON.parse(json.slice(open, close + 1)) as string;
      this.#from = open + 1;
      this.#fromDecoded = 0;
      this.#returned = false;
    }
    let piece: string;
    try {
      // Ends with a lone backslash or inside `\uXXXX` exactly when `at` is inside an escape.
      piece = JSON.parse(`"${json.slice(this.#from, at)}"`) as string;
    } catch {
      return undefined;
    }
    this.#from = at;
    this.#fromDecoded += piece.length;
    const first = !this.#returned;
    this.#returned = true;
    return { text: this.#decoded, at: this.#fromDecoded, first, isKey: json.charCodeAt(this.#close + 1) === 0x3a };
  }
}

/** Whether the quote at `at` is escaped: an odd number of backslashes stands right before it. */
function isEscaped(json: string, at: number): boolean {
  let backslashes = 0;
  while (at - backslashes - 1 >= 0 && json.charCodeAt(at - backslashes - 1) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
}
