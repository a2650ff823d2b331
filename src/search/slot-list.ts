// A list of document slots that a search fills and empties and the next search fills again: its
// storage is kept, so a search over thousands of tools makes no garbage for the slots it touches
// (growing number[]s were most of a search's garbage, and the young-generation collections they
// set off were the long tail of search latency). Not safe to share between searches in flight;
// a search is synchronous.

/** A reusable list of non-negative integers; see the module comment. */
export class SlotList {
  #slots = new Int32Array(64);
  /** Slots in the list. */
  length = 0;

  /** Appends `slot`, doubling the storage when full. */
  push(slot: number): void {
    if (this.length === this.#slots.length) {
      const grown = new Int32Array(this.#slots.length * 2);
      grown.set(this.#slots);
      this.#slots = grown;
    }
    this.#slots[this.length++] = slot;
  }

  /** The slot at `index` (0 ≤ index < length). */
  at(index: number): number {
    return this.#slots[index] as number;
  }

  /** Empties the list, keeping its storage. */
  clear(): void {
    this.length = 0;
  }
}
