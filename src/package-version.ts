// The installed package's version, for `switchyard --version` and the fingerprint of a durable run's
// type check. Read from package.json beside the code (src/ in a checkout, dist/src when built or
// installed), once per process, never hard-coded.

import { readFileSync } from "node:fs";

const CANDIDATES = ["../package.json", "../../package.json"];

let version: string | undefined;

/** The `version` of switchyard-runtime's package.json; "unknown" if none is found (a broken copy). */
export function packageVersion(): string {
  return (version ??= readPackageVersion());
}

function readPackageVersion(): string {
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
