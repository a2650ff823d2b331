// Loads isolated-vm for the Node line this process runs on, synchronously (CommonJS consumers
// `require()` this package, so no top-level await). package.json declares it twice: "isolated-vm"
// (a range npm resolves by `engines`: 5.x compiled on Node 20, 6.x or 7.x prebuilt on 22 and 24)
// and "isolated-vm-7" (7.x, prebuilt for Node >= 24: what an install from a lock pinned to 5.x on
// Node 20 loads on 24). The first that loads wins; when none does, one SANDBOX_UNAVAILABLE line.

import { createRequire } from "node:module";
import type IsolatedVm from "isolated-vm";
import { SwitchyardError } from "../errors.js";

/** The isolated-vm module as `require` returns it; its types come from the one `isolated-vm` declaration. */
export type IsolatedVmModule = typeof IsolatedVm;

/** The package names tried, in order: both are declared in package.json's optionalDependencies. */
export const ISOLATED_VM_PACKAGES = ["isolated-vm", "isolated-vm-7"] as const;

const require = createRequire(import.meta.url);
let loaded: IsolatedVmModule | undefined;

/**
 * Returns isolated-vm, loading it on the first call (the native addon is not loaded by importing
 * Switchyard). Throws SwitchyardError `SANDBOX_UNAVAILABLE`, one line naming the Node version, its
 * ABI, the platform, why each package failed and what to do, when no package loads.
 */
export function loadIsolatedVm(): IsolatedVmModule {
  loaded ??= loadFirstIsolatedVm(ISOLATED_VM_PACKAGES, require);
  return loaded;
}

/**
 * Loads the first of `packages` that `load` returns a working isolated-vm for (one that exports an
 * `Isolate` class); see `loadIsolatedVm`. `load` is `require` in production and a stand-in in tests.
 */
export function loadFirstIsolatedVm(packages: readonly string[], load: (name: string) => unknown): IsolatedVmModule {
  const failures: string[] = [];
  for (const name of packages) {
    try {
      const candidate = load(name) as Partial<IsolatedVmModule> | null | undefined;
      if (typeof candidate?.Isolate === "function") return candidate as IsolatedVmModule;
      failures.push(`${name}: exports no Isolate`);
    } catch (error) {
      failures.push(`${name}: ${reasonOf(error, name)}`);
    }
  }
  const line = `Node ${process.version} (ABI ${process.versions.modules}, ${process.platform}-${process.arch})`;
  throw new SwitchyardError(
    "SANDBOX_UNAVAILABLE",
    `No isolated-vm binary loads on ${line} (${failures.join("; ")}). ${adviceFor(process.versions.node)}`,
    { node: process.version, abi: process.versions.modules, platform: `${process.platform}-${process.arch}`, failures },
  );
}

/** The first line of why `name` failed to load, without paths: "not installed" for a missing package. */
function reasonOf(error: unknown, name: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = String((error as { message?: unknown } | null)?.message ?? error);
  if (code === "MODULE_NOT_FOUND" && message.includes(`'${name}'`)) return "not installed";
  // A 5.x install whose build never ran (npm 12 blocks install scripts) or failed part-way.
  if (code === "MODULE_NOT_FOUND") return "installed but its native binary was never built";
  const first = message.split("\n", 1)[0] ?? "";
  return first.replace(/(?:\/[^\s'"]+)+\//g, "…/").slice(0, 200);
}

/** What to do on this Node line: prebuilt binaries exist for 22 and later, Node 20 compiles 5.x. */
function adviceFor(nodeVersion: string): string {
  const major = Number(nodeVersion.split(".")[0]);
  if (major < 22) {
    return (
      "On Node 20 isolated-vm 5 is compiled at install: install python3, make and g++, then run " +
      "`npm rebuild isolated-vm`; or use Node 22 or 24, which load a prebuilt binary."
    );
  }
  return (
    "Node 22 and 24 load a prebuilt binary (Linux x64/arm64, macOS arm64, Windows x64): reinstall " +
    "switchyard-runtime with npm on this Node, without --omit=optional, so it picks isolated-vm 6 or 7; " +
    "elsewhere install a C++ toolchain and run `npm rebuild isolated-vm`."
  );
}
