// The installed package's version, for `switchyard --version`. Read from package.json beside
// the code (src/cli in a checkout, dist/src/cli when built or installed), never hard-coded.

import { readFileSync } from "node:fs";

const CANDIDATES = ["../../package.json", "../../../package.json"];

/** The `version` of switchyard-runtime's package.json; "unknown" if none is found (a broken copy). */
export function packageVersion(): string {
  for (const candidate of CANDIDATES) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(candidate, import.meta.url), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === "switchyard-runtime" && typeof manifest.version === "string") return manifest.version;
    } catch {
      // Not at this level: try the next.
    }
  }
  return "unknown";
}
