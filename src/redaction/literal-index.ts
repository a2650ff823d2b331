// Finds every occurrence of a fixed set of literal texts (the rules' keywords, the known secret
// values; 3 code units or more) in one pass over a text, longest text first at each position.
// Texts that start with a lowercase letter count only at the start of a word (after a character
// that is not an ASCII letter): see KeywordScanner for why. Linear in the text; every hit is
// checked on the text itself.
//
// How: the low bytes of the text are copied into a typed array and read two at a time, as
// 16-bit words. A text of three code units or more holds a pair of them at an even position,
// either its first pair or its second, so one table look-up per word rules out most of the text;
// the rest is checked against the texts that start there. Why by hand: on the 1 MB bench value
// (bench/redaction.ts: two-byte JSON text, 103 keywords) the trie-shaped regexes this replaces
// took about 5 ms (their word-start alternation alone 3.9 ms: irregexp tries each first letter
// in turn after every non-letter), a loop over `charCodeAt` about 3.3 ms, this loop about
// 1.5 ms; the Aho-Corasick packages on npm are slower still (`ahocorasick` 1.0.2: 56 ms;
// `modern-ahocorasick` 3.3.0 matches grapheme clusters and did not finish).

/** One text of the index and what the caller attached to it. */
export interface IndexedText<T> {
  readonly text: string;
  /** Counts only at the start of a word; for keywords that start with a lowercase letter. */
  readonly wordStart: boolean;
  readonly value: T;
}

/** Texts sharing their first two code units (low bytes), longest first. */
interface Bucket<T> {
  readonly texts: readonly IndexedText<T>[];
  /** Whether some text of the bucket counts anywhere, not only at a word start. */
  readonly anywhere: boolean;
}

/** Whether the typed arrays of this machine put the low byte of a 16-bit word first. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The 16-bit word two bytes make in a typed array, as `Uint16Array` reads it on this machine. */
function wordOf(first: number, second: number): number {
  return LITTLE_ENDIAN ? (first & 0xff) | ((second & 0xff) << 8) : ((first & 0xff) << 8) | (second & 0xff);
}

/** In #pairs: a text starts with this pair; a text has it as its second pair (starts one earlier). */
const FIRST_PAIR = 1;
const SECOND_PAIR = 2;

/** A set of texts found in one pass; see the module comment. */
export class LiteralIndex<T> {
  /** Per word (`wordOf`), FIRST_PAIR and SECOND_PAIR flags. */
  readonly #pairs = new Uint8Array(1 << 16);
  /** Per word of a first pair, 1 + the bucket's index in #buckets; 0 when no text starts with it. */
  readonly #bucketOf = new Uint16Array(1 << 16);
  readonly #buckets: Bucket<T>[] = [];
  /** Per bucket, 128 bits: which third code units (low 7 bits) its texts have. */
  readonly #thirds: Uint32Array;

  /** Throws an Error for a text shorter than 3 code units (a programming error). */
  constructor(texts: readonly IndexedText<T>[]) {
    const grouped = new Map<number, IndexedText<T>[]>();
    for (const entry of texts) {
      const { text } = entry;
      if (text.length < 3) throw new Error(`LiteralIndex: "${text}" is shorter than 3 code units`);
      const first = wordOf(text.charCodeAt(0), text.charCodeAt(1));
      this.#pairs[first]! |= FIRST_PAIR;
      this.#pairs[wordOf(text.charCodeAt(1), text.charCodeAt(2))]! |= SECOND_PAIR;
      let group = grouped.get(first);
      if (group === undefined) grouped.set(first, (group = []));
      group.push(entry);
    }
    this.#thirds = new Uint32Array(grouped.size * 4);
    for (const [first, group] of grouped) {
      const index = this.#buckets.length;
      group.sort((a, b) => b.text.length - a.text.length);
      this.#buckets.push({ texts: group, anywhere: group.some((entry) => !entry.wordStart) });
      this.#bucketOf[first] = index + 1;
      for (const { text } of group) {
        const third = text.charCodeAt(2) & 0x7f;
        this.#thirds[index * 4 + (third >> 5)]! |= 1 << (third & 31);
      }
    }
  }

  /**
   * Calls `visit` for each position of `text` where a text of the index occurs, in position
   * order, with the longest such text; stops when `visit` returns false. With `jsonText`, a
   * word also starts after a JSON escape (`\n`, `\u00e9`): in the JSON text of a string, the
   * character before such a word is the escape's last letter.
   */
  forEachHit(text: string, jsonText: boolean, visit: (at: number, entry: IndexedText<T>) => boolean): void {
    if (text.length < 3) return;
    // A visit that scans again (none does today) gets buffers of its own.
    const nested = scanning;
    const buffers = nested ? new LowBytes(text.length) : sharedBuffers(text.length);
    buffers.fill(text);
    scanning = true;
    try {
      this.#visitHits(text, buffers, jsonText, visit);
    } finally {
      scanning = nested;
    }
  }

  #visitHits(
    text: string,
    { bytes, words }: LowBytes,
    jsonText: boolean,
    visit: (at: number, entry: IndexedText<T>) => boolean,
  ): void {
    const pairs = this.#pairs;
    const bucketOf = this.#bucketOf;
    const thirds = this.#thirds;
    const length = text.length;
    const count = length >> 1;
    for (let word = 0; word < count; word++) {
      const flags = pairs[words[word]!]!;
      if (flags === 0) continue;
      const even = word << 1;
      // A text starting one code unit earlier comes first: hits stay in position order. The
      // bucket and third-unit tests are inline: they rule out most of what the pair table lets by.
      if ((flags & SECOND_PAIR) !== 0 && even > 0 && even + 1 < length) {
        const slot = bucketOf[wordOf(bytes[even - 1]!, bytes[even]!)]!;
        const third = bytes[even + 1]! & 0x7f;
        if (slot !== 0 && (thirds[(slot - 1) * 4 + (third >> 5)]! & (1 << (third & 31))) !== 0) {
          if (!this.#visitAt(text, even - 1, slot - 1, jsonText, visit)) return;
        }
      }
      if ((flags & FIRST_PAIR) !== 0 && even + 2 < length) {
        const slot = bucketOf[words[word]!]!;
        const third = bytes[even + 2]! & 0x7f;
        if (slot !== 0 && (thirds[(slot - 1) * 4 + (third >> 5)]! & (1 << (third & 31))) !== 0) {
          if (!this.#visitAt(text, even, slot - 1, jsonText, visit)) return;
        }
      }
    }
  }

  /** Visits the longest text of bucket `index` at `at`, if any; false when the visit says to stop. */
  #visitAt(
    text: string,
    at: number,
    index: number,
    jsonText: boolean,
    visit: (at: number, entry: IndexedText<T>) => boolean,
  ): boolean {
    const bucket = this.#buckets[index]!;
    // The real character before, not its low byte: "Ł" (U+0141) is not the letter "A".
    const wordStart = at === 0 || !isAsciiLetter(text.charCodeAt(at - 1)) || (jsonText && endsJsonEscape(text, at));
    if (!bucket.anywhere && !wordStart) return true;
    for (const entry of bucket.texts) {
      if ((wordStart || !entry.wordStart) && text.startsWith(entry.text, at)) return visit(at, entry);
    }
    return true;
  }
}

/** The low byte of each code unit of a text, as bytes and as 16-bit words over the same memory. */
class LowBytes {
  readonly bytes: Uint8Array;
  readonly words: Uint16Array;
  readonly #writer: Buffer;

  constructor(length: number) {
    // An even byte length, so the word view covers every byte.
    const memory = new ArrayBuffer(length + (length % 2));
    this.bytes = new Uint8Array(memory);
    this.words = new Uint16Array(memory);
    this.#writer = Buffer.from(memory);
  }

  /** Copies `text`, which must fit. Node documents that latin1 truncates a code unit to its low byte. */
  fill(text: string): void {
    const length = text.length;
    // By hand for a short text: cheaper than the call.
    if (length > 64) this.#writer.write(text, 0, length, "latin1");
    else for (let index = 0; index < length; index++) this.bytes[index] = text.charCodeAt(index);
  }
}

/** Whether a `forEachHit` is running, so its visits must not reuse the shared buffers. */
let scanning = false;
let shared = new LowBytes(4096);
/** Largest shared buffers kept between calls; a longer text gets buffers of its own, freed after. */
const MAX_SHARED_BYTES = 4 * 1024 * 1024;

/** The buffers reused from call to call, grown to hold `length` code units. */
function sharedBuffers(length: number): LowBytes {
  if (length > MAX_SHARED_BYTES) return new LowBytes(length);
  if (shared.bytes.length < length)
    shared = new LowBytes(Math.min(MAX_SHARED_BYTES, Math.max(length, 2 * shared.bytes.length)));
  return shared;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/**
 * Whether the letter before `at` may end a JSON escape: `\b \f \n \r \t` or `\uXXXX` (JSON.stringify
 * writes lowercase hex). Does not count the backslashes before it, so `\\n` passes too: a word
 * start too many only costs a closer look.
 */
function endsJsonEscape(text: string, at: number): boolean {
  if (at >= 2 && text.charCodeAt(at - 2) === 0x5c && "bfnrt".includes(text[at - 1]!)) return true;
  return (
    at >= 6 && text.charCodeAt(at - 6) === 0x5c && text[at - 5] === "u" && /^[0-9a-f]{4}$/.test(text.slice(at - 4, at))
  );
}
