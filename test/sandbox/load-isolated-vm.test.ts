// The isolated-vm loader: the real package for this Node line, and real `require` failures from
// folders laid out as broken installs are (a build that never ran, a package exporting nothing,
// an error carrying host paths), each ending as one SANDBOX_UNAVAILABLE line or the next package.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { ISOLATED_VM_PACKAGES, loadFirstIsolatedVm, loadIsolatedVm } from "../../src/sandbox/load-isolated-vm.js";

const temp = mkdtempSync(join(tmpdir(), "switchyard-ivm-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A folder whose node_modules holds `packages` (name -> files, or a path to link to); its `require`. */
function installs(name: string, packages: Record<string, Record<string, string> | string>): NodeJS.Require {
  const root = join(temp, name);
  for (const [packageName, content] of Object.entries(packages)) {
    const folder = join(root, "node_modules", packageName);
    mkdirSync(dirname(folder), { recursive: true });
    if (typeof content === "string") {
      symlinkSync(content, folder);
      continue;
    }
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "package.json"), JSON.stringify({ name: packageName, main: "index.js" }));
    for (const [file, text] of Object.entries(content)) writeFileSync(join(folder, file), text);
  }
  mkdirSync(root, { recursive: true });
  return createRequire(join(root, "index.js"));
}

function failureOf(load: () => unknown): SwitchyardError {
  try {
    load();
  } catch (error) {
    if (SwitchyardError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected SANDBOX_UNAVAILABLE");
}

/** The folder of the isolated-vm this checkout installed for the running Node. */
function installedIsolatedVm(): string {
  const require = createRequire(import.meta.url);
  for (const name of ISOLATED_VM_PACKAGES) {
    try {
      return dirname(require.resolve(`${name}/package.json`));
    } catch {}
  }
  throw new Error("no isolated-vm installed for this Node");
}

describe("loadIsolatedVm", () => {
  it("loads the isolated-vm installed for this Node line, once, and its isolates run code", async () => {
    const ivm = loadIsolatedVm();
    expect(loadIsolatedVm()).toBe(ivm);
    const isolate = new ivm.Isolate({ memoryLimit: 16 });
    try {
      const context = await isolate.createContext();
      expect(await context.eval("6 * 7")).toBe(42);
    } finally {
      isolate.dispose();
    }
  });

  it("throws one SANDBOX_UNAVAILABLE line naming Node, its ABI and platform where no package is installed", () => {
    const error = failureOf(() => loadFirstIsolatedVm(ISOLATED_VM_PACKAGES, installs("none", {})));
    expect(error.code).toBe("SANDBOX_UNAVAILABLE");
    expect(error.message).not.toContain("\n");
    expect(error.message).toContain(`Node ${process.version} (ABI ${process.versions.modules}, ${process.platform}-`);
    expect(error.message).toContain("isolated-vm: not installed; isolated-vm-7: not installed");
    expect(error.message).toMatch(/npm rebuild isolated-vm/);
  });

  it("says a package whose native build never ran (npm 12 skipped its install script) was never built", () => {
    const load = installs("unbuilt", {
      "isolated-vm": { "index.js": "module.exports = require('./out/isolated_vm');" },
    });
    const error = failureOf(() => loadFirstIsolatedVm(["isolated-vm"], load));
    expect(error.message).toContain("isolated-vm: installed but its native binary was never built");
  });

  it("refuses a package that loads but exports no Isolate, and keeps host paths and stacks out of the line", () => {
    const load = installs("hostile", {
      "isolated-vm": { "index.js": "module.exports = { Isolate: 'not a class' };" },
      "isolated-vm-7": {
        "index.js": "throw new Error('No native build was found in /home/user/secret/project/prebuilds\\n    at x');",
      },
    });
    const error = failureOf(() => loadFirstIsolatedVm(ISOLATED_VM_PACKAGES, load));
    expect(error.message).toContain("isolated-vm: exports no Isolate");
    expect(error.message).toContain("isolated-vm-7: No native build was found in …/prebuilds");
    expect(error.message).not.toContain("/home/user");
    expect(error.message).not.toContain("\n");
  });

  it("falls through to isolated-vm-7 when isolated-vm is missing, as an install on Node 24 from the repo's lock is", () => {
    const load = installs("second", { "isolated-vm-7": installedIsolatedVm() });
    const ivm = loadFirstIsolatedVm(ISOLATED_VM_PACKAGES, load);
    expect(typeof ivm.Isolate).toBe("function");
  });
});
