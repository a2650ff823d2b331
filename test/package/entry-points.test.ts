// The package as published: entry points, optional peers, and what importing it loads. The
// core and `/agent` are imported in a fresh Node process (through tsx, from the sources) that
// records every module it loads; the installed-tarball side of this is .ci/consumer-test.sh.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import {
  isInstalled,
  missingDependencyError,
  OPTIONAL_DEPENDENCIES,
  requireIfInstalled,
} from "../../src/optional-dependency.js";
import {
  bestTokenCounter,
  countTokens,
  ESTIMATED_TOKENIZER,
  estimateTokens,
  TOKENIZER,
} from "../../src/search/token-count.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, string | Record<string, string>>;
  files: string[];
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  scripts: Record<string, string>;
};
const tsconfig = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8")) as {
  compilerOptions: { paths: Record<string, string[]> };
};

const temp = mkdtempSync(join(tmpdir(), "switchyard-entry-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Imports `entry` (a source file) in a fresh Node process and returns the package names it loaded. */
function packagesLoadedBy(entry: string): string[] {
  const log = join(temp, `loads-${Math.random().toString(36).slice(2)}.txt`);
  const hook = join(temp, "record-loads.mjs");
  writeFileSync(
    hook,
    `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
import { appendFileSync } from "node:fs";
export async function load(url, context, next) { appendFileSync(process.env.SWITCHYARD_LOAD_LOG, url + "\\\\n"); return next(url, context); }
\`));
`,
  );
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const script = `import { createRequire } from "node:module";
await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});
process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`;
  const cjs = JSON.parse(
    execFileSync(
      process.execPath,
      ["--import", tsx, "--import", pathToFileURL(hook).href, "--input-type=module", "-e", script],
      {
        cwd: ROOT,
        env: { ...process.env, SWITCHYARD_LOAD_LOG: log },
        encoding: "utf8",
      },
    ),
  ) as string[];
  const esm = existsSync(log) ? readFileSync(log, "utf8").split("\n") : [];
  const names = new Set<string>();
  for (const loaded of [...cjs, ...esm]) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(loaded);
    if (match !== null) names.add(match[1]!);
  }
  return [...names].sort();
}

describe("importing the package", () => {
  it("loads no provider SDK, tokenizer, MCP SDK, TypeScript, ajv or OpenTelemetry API for the core entry", () => {
    const loaded = packagesLoadedBy("src/index.ts");
    for (const heavy of [
      "@anthropic-ai/sdk",
      "openai",
      "gpt-tokenizer",
      "@modelcontextprotocol/sdk",
      "typescript",
      "ajv",
      // Required by the first span, and only once a provider is registered (switchyard-telemetry.ts).
      "@opentelemetry/api",
    ]) {
      expect(loaded).not.toContain(heavy);
    }
    // The native addon loads when the first session is made (loadIsolatedVm), not on import.
    expect(loaded).not.toContain("isolated-vm");
  }, 60_000);

  it("sees what an entry does load: the /gateway entry loads the MCP SDK's server", () => {
    expect(packagesLoadedBy("src/gateway/index.ts")).toContain("@modelcontextprotocol/sdk");
  }, 60_000);

  it("loads neither BullMQ nor ioredis for the /fleet entry until a fleet function is called", () => {
    const loaded = packagesLoadedBy("src/fleet/index.ts");
    expect(loaded).not.toContain("bullmq");
    expect(loaded).not.toContain("ioredis");
    expect(packagesLoadedBy("src/index.ts")).not.toContain("bullmq");
  }, 60_000);

  it("loads no provider SDK for the /agent entry until an adapter makes a request", () => {
    const loaded = packagesLoadedBy("src/agent/index.ts");
    expect(loaded).not.toContain("@anthropic-ai/sdk");
    expect(loaded).not.toContain("openai");
  }, 60_000);
});

describe("package.json", () => {
  it("is switchyard-runtime with the switchyard command, built on pack", () => {
    expect(manifest.name).toBe("switchyard-runtime");
    expect(manifest.bin).toEqual({ switchyard: "./bin/switchyard.js" });
    expect(manifest.scripts["prepack"]).toBe("npm run build");
    expect(existsSync(join(ROOT, "LICENSE"))).toBe(true);
    expect(manifest.files).toEqual(
      expect.arrayContaining(["bin", "dist/src", "dist/runtime", "switchyard.config.schema.json"]),
    );
  });

  it("gives every code entry point types, import and default conditions into dist, one per source entry and tsconfig path", () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target === "string") continue;
      expect(Object.keys(target)).toEqual(["types", "import", "default"]);
      const source = target["import"]!.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts");
      expect(target["types"]).toBe(target["import"]!.replace(/\.js$/, ".d.ts"));
      expect(target["default"]).toBe(target["import"]);
      expect(existsSync(join(ROOT, source))).toBe(true);
      const name = subpath === "." ? manifest.name : `${manifest.name}${subpath.slice(1)}`;
      expect(tsconfig.compilerOptions.paths[name]).toEqual([`./${source}`]);
    }
  });

  it("declares each optional package as an optional peer with the range the error names, and tests against it", () => {
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(Object.keys(OPTIONAL_DEPENDENCIES).sort());
    for (const [name, { range }] of Object.entries(OPTIONAL_DEPENDENCIES)) {
      expect(manifest.peerDependencies[name]).toBe(range);
      expect(manifest.peerDependenciesMeta[name]).toEqual({ optional: true });
      expect(manifest.dependencies[name]).toBeUndefined();
      // The exact version our tests use is the floor of the range we declare (of its first major:
      // a later one, for Node >= 22, is tested in .ci/consumer-test.sh on Node 24). The local
      // embedder's runtime is the exception: its install fetches native binaries, so tests stop at its refusal.
      if (name === "@huggingface/transformers") expect(manifest.devDependencies[name]).toBeUndefined();
      else expect(range.split(" || ")[0]).toBe(`^${manifest.devDependencies[name]}`);
    }
  });
});

describe("optional dependencies", () => {
  it("names the package and the install command when one is missing", () => {
    const error = missingDependencyError("openai");
    expect(SwitchyardError.isInstance(error)).toBe(true);
    expect(error.code).toBe("OPTIONAL_DEPENDENCY_MISSING");
    expect(error.message).toContain('"openai"');
    expect(error.message).toContain(`npm install openai@${Number(process.versions.node.split(".")[0]) >= 22 ? 7 : 6}`);
    expect(error.message).toContain("createOpenAIAdapter");
  });

  it("tells an installed package from one that is not, without loading it", () => {
    expect(isInstalled("switchyard-no-such-package-xyz")).toBe(false);
    expect(isInstalled("@scope-that-does-not-exist/nothing")).toBe(false);
    expect(isInstalled("gpt-tokenizer")).toBe(true);
  });

  it("counts exactly with gpt-tokenizer when installed, and says which tokenizer counted", () => {
    expect(requireIfInstalled("gpt-tokenizer")).toBeDefined();
    const counter = bestTokenCounter();
    expect(counter.tokenizer).toBe(TOKENIZER);
    expect(counter.count("hello world")).toBe(countTokens("hello world"));
    expect(countTokens("")).toBe(0);
  });

  it("estimates tokens as characters / 4, rounded up, under its own label", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcde")).toBe(2);
    expect(ESTIMATED_TOKENIZER).toContain("gpt-tokenizer not installed");
  });
});
