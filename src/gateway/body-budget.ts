// The bytes of HTTP request bodies the gateway holds at once, across all connections: each body
// is capped on its own (4 MB), but a thousand clients sending large bodies together would pin
// gigabytes. A body takes its bytes as they arrive and gives them all back once it is parsed or
// refused; a body that would pass the budget is refused with 503, never waited for.

/** Default of `maxBodyBytesInFlight`: 64 MiB, sixteen bodies of the largest size at once. */
export const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT = 64 * 1024 * 1024;

/** A shared count of request-body bytes held, against a limit. */
export class BodyBudget {
  readonly maxBytes: number;
  #held = 0;

  /** `maxBytes`: the most bytes of bodies held at once (a positive integer). */
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held now by bodies being read. */
  get held(): number {
    return this.#held;
  }

  /** Takes `bytes` if the budget has them; false (and nothing taken) if not. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.maxBytes) return false;
    this.#held += bytes;
    return true;
  }

  /** Gives back `bytes` taken earlier. */
  give(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }
}
