// Catalog names to provider tool names and back. Providers accept ^[a-zA-Z0-9_-]{1,64}$, so
// `orders.search` is offered as `orders__search`; the mapping is a table, so decoding is exact
// whatever the encoding had to do. Two names that would map to one provider name throw
// before any model call: the model could not tell them apart.

import { createHash } from "node:crypto";
import { SwitchyardError } from "../errors.js";

export const PROVIDER_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_PROVIDER_NAME_LENGTH = 64;

/**
 * The provider name of a catalog name: the namespace dot becomes `__`, any other character
 * outside `[a-zA-Z0-9_-]` becomes `_`, and a name over 64 characters keeps its first 55 and
 * ends with `_` and 8 hex digits of its SHA-256. Deterministic; not reversible on its own.
 */
export function toProviderToolName(name: string): string {
  const dot = name.indexOf(".");
  const joined = dot === -1 ? name : `${name.slice(0, dot)}__${name.slice(dot + 1)}`;
  const safe = joined.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (safe.length > 0 && safe.length <= MAX_PROVIDER_NAME_LENGTH) return safe;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${safe.slice(0, MAX_PROVIDER_NAME_LENGTH - 9)}_${hash}`;
}

/** A two-way table between catalog names and provider names for one set of offered tools. */
export class ProviderToolNames {
  readonly #toProvider = new Map<string, string>();
  readonly #fromProvider = new Map<string, string>();

  /**
   * Builds the table. `reserved` are provider names already taken (e.g. `run_program`).
   * Throws `SwitchyardError("TOOL_NAME_COLLISION")` when two names map to one provider name.
   */
  constructor(names: readonly string[], reserved: readonly string[] = []) {
    for (const name of reserved) this.#fromProvider.set(name, name);
    for (const name of names) {
      const providerName = toProviderToolName(name);
      const taken = this.#fromProvider.get(providerName);
      if (taken !== undefined) {
        throw new SwitchyardError(
          "TOOL_NAME_COLLISION",
          `Tools "${taken}" and "${name}" both map to the provider tool name "${providerName}"; rename one of them.`,
          { providerName, names: [taken, name] },
        );
      }
      this.#toProvider.set(name, providerName);
      this.#fromProvider.set(providerName, name);
    }
  }

  /** The provider name of a catalog name in the table; undefined when it is not offered. */
  toProvider(name: string): string | undefined {
    return this.#toProvider.get(name);
  }

  /** The catalog (or reserved) name a provider name stands for; undefined when unknown. */
  fromProvider(providerName: string): string | undefined {
    return this.#fromProvider.get(providerName);
  }

  /** Every provider name in the table, reserved ones first. */
  providerNames(): string[] {
    return [...this.#fromProvider.keys()];
  }
}
