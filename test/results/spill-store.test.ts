import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { SpillStore } from "../../src/results/spill-store.js";
import { Switchyard } from "../../src/switchyard.js";

let root: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "switchyard-spill-test-")));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe("SpillStore permissions", () => {
  it("creates its folder 0700 and each result 0600", async () => {
    const store = new SpillStore(join(root, "fresh", "spill"));
    const spilled = await store.spill('{"secret":"token"}');
    expect(await modeOf(store.folder)).toBe(0o700);
    expect(await modeOf(spilled.path)).toBe(0o600);
    expect(await readFile(spilled.path, "utf8")).toBe('{"secret":"token"}');
  });

  it("tightens a folder of its own that others could read", async () => {
    const folder = join(root, "loose");
    await mkdir(folder, { mode: 0o777 });
    await chmod(folder, 0o777);
    await new SpillStore(folder).spill("[]");
    expect(await modeOf(folder)).toBe(0o700);
  });

  it("refuses to write through a symbolic link planted where the folder should be", async () => {
    const target = join(root, "elsewhere");
    await mkdir(target);
    const folder = join(root, "planted-link");
    await symlink(target, folder);
    await expect(new SpillStore(folder).spill("[]")).rejects.toThrow(/not a folder/);
    await writeFile(join(root, "a-file"), "");
    await expect(new SpillStore(join(root, "a-file")).spill("[]")).rejects.toThrow();
  });

  it("keeps a session's default spill folder private", async () => {
    const bigTool = defineTool({
      name: "logs.dump",
      description: "Returns 50 KB of log lines.",
      effect: "read",
      inputSchema: { type: "object" },
      execute: () => Array.from({ length: 2_000 }, (_, index) => `line ${index}: ok`),
    });
    const yard = new Switchyard({ tools: [bigTool] });
    try {
      const outcome = await yard.callTool("logs.dump", {});
      expect(outcome).toMatchObject({ status: "ok", value: { spilled: true } });
      const handle = (outcome as { value: { handle: string } }).value.handle;
      const folders = (await readdir(tmpdir())).filter((name) => name.startsWith(`switchyard-spill-${process.pid}-`));
      const folder = folders.map((name) => join(tmpdir(), name)).find((path) => path !== root);
      expect(folder).toBeDefined();
      expect(await modeOf(folder as string)).toBe(0o700);
      expect(await modeOf(join(folder as string, `${handle}.json`))).toBe(0o600);
    } finally {
      await yard.close();
    }
  });

  it("turns a spill that fails into a RESULT_TOO_LARGE outcome, not a rejected call", async () => {
    const folder = join(root, "not-a-folder");
    await writeFile(folder, "");
    const bigTool = defineTool({
      name: "logs.dump",
      description: "Returns 50 KB of log lines.",
      effect: "read",
      inputSchema: { type: "object" },
      execute: () => "x".repeat(50_000),
    });
    const yard = new Switchyard({ tools: [bigTool], results: { spill: new SpillStore(folder) } });
    const outcome = await yard.callTool("logs.dump", {});
    expect(outcome).toMatchObject({ status: "error", error: { code: "RESULT_TOO_LARGE" } });
    expect(JSON.stringify(outcome)).not.toContain(root);
  });
});
