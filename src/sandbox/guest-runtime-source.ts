// Loads the guest runtime (runtime/guest-runtime.ts and the wire module it imports) as one
// script, bundled with esbuild once per process. Only our own runtime/ folder is bundled
// here; model-written programs are only ever transformed, never bundled.

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

let cached: Promise<string> | undefined;

/** The guest runtime as an ES2022 script that defines `globalThis.__switchyardInstall`. */
export function loadGuestRuntimeSource(): Promise<string> {
  cached ??= bundleGuestRuntime().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function bundleGuestRuntime(): Promise<string> {
  const entry = findRuntimeEntry();
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2022",
    platform: "neutral",
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error("esbuild produced no guest runtime");
  return file.text;
}

// Works from the TypeScript sources (src/sandbox) and from the compiled package (dist/src/sandbox).
function findRuntimeEntry(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    const candidate = join(folder, "runtime", "guest-runtime.ts");
    if (existsSync(candidate)) return candidate;
    folder = dirname(folder);
  }
  throw new Error("runtime/guest-runtime.ts not found next to the switchyard package");
}
