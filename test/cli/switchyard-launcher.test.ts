// bin/switchyard.js picks what to run: the compiled JavaScript of an installed package, or of a
// checkout whose build is at least as new as its sources (no tsx, so the command starts fast);
// the TypeScript sources through tsx only in a checkout that is unbuilt or built stale. Checked
// on a copy of the launcher in a package laid out like ours, with stubs that say which ran.

import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { tempFolder } from "../helpers/mcp-servers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const temp = tempFolder("launcher");
afterAll(() => temp.remove());

const BUILT = ["dist/src/cli/main.js", "dist/runtime/guest-runtime.iife.js", "dist/browser/timeline-page.iife.js"];

/** A package folder with the real launcher and stub entries; returns its root. */
function layout(name: string, options: { sources: boolean }): string {
  const root = join(temp.path, name);
  const put = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  put("package.json", JSON.stringify({ name: "switchyard-runtime", type: "module" }));
  mkdirSync(join(root, "bin"), { recursive: true });
  copyFileSync(join(ROOT, "bin/switchyard.js"), join(root, "bin/switchyard.js"));
  symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
  for (const path of BUILT) put(path, 'console.log(`compiled ${process.execArgv.join(" ")}`);\n');
  if (options.sources) {
    put("src/cli/main.ts", 'const where: string = "source";\nconsole.log(`${where} ${process.execArgv.join(" ")}`);\n');
    put("runtime/guest-runtime.ts", "export {};\n");
    put("tsconfig.json", "{}\n");
  }
  return root;
}

function age(root: string, paths: readonly string[], secondsAgo: number): void {
  const when = new Date(Date.now() - secondsAgo * 1000);
  for (const path of paths) utimesSync(join(root, path), when, when);
}

async function launch(root: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, "bin/switchyard.js"), "--help"]);
  return stdout.trim();
}

describe("bin/switchyard.js", () => {
  it("runs the compiled JavaScript of an installed package, with --no-node-snapshot and without tsx", async () => {
    expect(await launch(layout("installed", { sources: false }))).toBe("compiled --no-node-snapshot");
  });

  it("runs the compiled JavaScript of a checkout built after its last source change", async () => {
    const root = layout("built", { sources: true });
    age(root, ["src/cli/main.ts", "runtime/guest-runtime.ts"], 60);
    expect(await launch(root)).toBe("compiled --no-node-snapshot");
  });

  it("runs the sources through tsx when any source is newer than any part of the build", async () => {
    const root = layout("stale", { sources: true });
    age(root, ["src/cli/main.ts"], 60);
    // The guest runtime changed after the build: its bundle in dist/ is stale, so the build is.
    age(root, BUILT, 30);
    expect(await launch(root)).toMatch(/^source --no-node-snapshot --import .*tsx/);
  });

  it("runs the sources through tsx when a part of the build is missing", async () => {
    const root = layout("half-built", { sources: true });
    age(root, ["src/cli/main.ts", "runtime/guest-runtime.ts"], 60);
    rmSync(join(root, "dist/browser/timeline-page.iife.js"));
    expect(await launch(root)).toMatch(/^source --no-node-snapshot --import .*tsx/);
  });
});
