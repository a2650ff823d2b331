// Loads the guest runtime (runtime/guest-runtime.ts and the wire module it imports) as one
// script. An installed package reads the bundle `npm run build` wrote beside its compiled
// code (dist/runtime/guest-runtime.iife.js); a checkout running its TypeScript bundles the
// sources with esbuild once per process. Only our own runtime/ folder is ever bundled;
// model-written programs are only transformed.

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as Esbuild from "esbuild";

/** Where the build writes the bundle, relative to this module once compiled (dist/src/sandbox). */
const PREBUILT_BUNDLE = new URL("../../runtime/guest-runtime.iife.js", import.meta.url);

let cached: Promise<string> | undefined;

/** The guest runtime as an ES2022 script that defines `globalThis.__switchyardInstall`. */
export function loadGuestRuntimeSource(): Promise<string> {
  cached ??= readGuestRuntime().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

async function readGuestRuntime(): Promise<string> {
  // Only compiled code has a bundle of the same build beside it; sources always bundle afresh.
  const compiled = import.meta.url.endsWith(".js");
  if (compiled && existsSync(fileURLToPath(PREBUILT_BUNDLE))) return await readFile(PREBUILT_BUNDLE, "utf8");
  return await bundleGuestRuntime();
}

/** Bundles runtime/guest-runtime.ts with esbuild; the build script writes the result to dist/runtime. */
export async function bundleGuestRuntime(): Promise<string> {
  const entry = findRuntimeEntry();
  const { build } = createRequire(import.meta.url)("esbuild") as typeof Esbuild;
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

// Works from the TypeScript sources (src/sandbox) and from compiled checkouts (dist/src/sandbox).
function findRuntimeEntry(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    const candidate = join(folder, "runtime", "guest-runtime.ts");
    if (existsSync(candidate)) return candidate;
    folder = dirname(folder);
  }
  throw new Error(
    "Neither dist/runtime/guest-runtime.iife.js nor runtime/guest-runtime.ts was found next to the switchyard-runtime package; reinstall it, or run `npm run build` in a checkout.",
  );
}
