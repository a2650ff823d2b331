// The host's side of a run's console: the guest bounds its own log and prefixes warn/error/debug
// lines with their level; this is the host's guard against a bypass. Past either budget it
// keeps one marker and nothing more.

/** A run's console lines as they reach the host; see the module comment. */
export class RunLog {
  readonly lines: string[] = [];
  readonly #maxLines: number;
  readonly #maxBytes: number;
  #bytes = 0;
  #cut = false;

  /** `maxBytes` gets 256 bytes of slack for the guest's own truncation marker. */
  constructor(maxLines: number, maxBytes: number) {
    this.#maxLines = maxLines;
    this.#maxBytes = maxBytes + 256;
  }

  /** Bytes kept, counting a newline per line. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Takes one line from the guest; anything but a string is ignored. */
  readonly append = (_level: unknown, text: unknown): void => {
    if (typeof text !== "string" || this.#cut) return;
    const bytes = Buffer.byteLength(text) + 1;
    if (this.lines.length === this.#maxLines || this.#bytes + bytes > this.#maxBytes) {
      this.#cut = true;
      this.lines.push("[switchyard: log truncated]");
      return;
    }
    this.#bytes += bytes;
    this.lines.push(text);
  };
}
