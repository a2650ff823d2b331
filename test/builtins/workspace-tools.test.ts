import { link, mkdir, readFile, rename, stat, symlink, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspaceTools } from "../../src/builtins/workspace-tools.js";
import type { RunResult } from "../../src/contract.js";
import { SwitchyardError, type ToolError } from "../../src/errors.js";
import { ToolScheduler } from "../../src/scheduler/tool-scheduler.js";
import { Switchyard } from "../../src/switchyard.js";
import { createWorkspaceFixture, type WorkspaceFixture } from "../helpers/workspace-fixture.js";

let fixture: WorkspaceFixture;
let base: string;
let root: string;
let outside: string;
let yard: Switchyard;

beforeAll(async () => {
  fixture = await createWorkspaceFixture("workspace");
  ({ base, root, outside } = fixture);
  await mkdir(join(root, "src", "deep"), { recursive: true });
  await mkdir(join(root, "docs"), { recursive: true });
  await writeFile(join(root, "README.md"), "# Project\nTODO: write docs\n");
  await writeFile(join(root, "src", "index.ts"), "export const a = 1;\n// TODO fix\nconst todo = 2;\n");
  await writeFile(join(root, "src", "deep", "util.ts"), "export function util() {}\n");
  await writeFile(join(root, "docs", "guide.md"), "Guide\n");
  await writeFile(join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01, 0x02]));
  await writeFile(join(root, "big.txt"), `${"x".repeat(3000)}\nTODO hidden in a big file\n`);
  yard = new Switchyard({
    tools: createWorkspaceTools({
      root,
      maxReadBytes: 2048,
      maxWriteBytes: 1024,
      maxListEntries: 50,
      maxSearchResults: 10,
    }),
    typeCheck: "off",
  });
});

afterAll(async () => {
  await fixture.remove();
});

async function run(source: string): Promise<RunResult> {
  const result = await yard.run(source);
  expect(result.error, JSON.stringify(result.error)).toBeUndefined();
  // Nothing the program sees may carry the host's absolute root.
  expect(JSON.stringify(result)).not.toContain(base);
  return result;
}

/** A program fragment that calls `call` and returns the error code it failed with. */
function codeOf(call: string): string {
  return `try { await ${call}; return "no error"; } catch (error) { return { code: error.code, message: error.message }; }`;
}

describe("createWorkspaceTools", () => {
  it("defines five builtin tools with read effects and a write effect for writeFile", () => {
    const tools = createWorkspaceTools({ root });
    expect(tools.map((tool) => [tool.name, tool.effect, tool.source])).toEqual([
      ["workspace.readFile", "read", "builtin"],
      ["workspace.writeFile", "write", "builtin"],
      ["workspace.listDir", "read", "builtin"],
      ["workspace.search", "read", "builtin"],
      ["workspace.stat", "read", "builtin"],
    ]);
    expect(yard.declarations()).toContain("readFile(");
  });

  it("gives one lexical lock key to two spellings of the same path", () => {
    const writeFileTool = createWorkspaceTools({ root })[1]!;
    const keys = [
      writeFileTool.resources!({ path: "a.txt", content: "" }),
      writeFileTool.resources!({ path: "./docs/../a.txt", content: "" }),
    ];
    expect(keys[0]).toEqual([`file:${join(root, "a.txt")}`]);
    expect(keys[1]).toEqual(keys[0]);
    // The scheduler turns that key into an exclusive lock for writes and a shared one for reads.
    const scheduler = new ToolScheduler();
    const call = { id: "c1", tool: "workspace.writeFile", input: {}, caller: "program" as const };
    expect(scheduler.locksFor(writeFileTool, call, keys[0]!)).toContainEqual({
      key: `resource:file:${join(root, "a.txt")}`,
      mode: "exclusive",
    });
    const readFileTool = createWorkspaceTools({ root })[0]!;
    expect(scheduler.locksFor(readFileTool, call, readFileTool.resources!({ path: "a.txt" }))).toContainEqual({
      key: `resource:file:${join(root, "a.txt")}`,
      mode: "shared",
    });
  });

  it("stays confined to the root resolved at creation when the root is later replaced by a symlink to the outside", async () => {
    const replaced = join(base, "replaced");
    await mkdir(replaced);
    const readFileTool = createWorkspaceTools({ root: replaced })[0]!;
    await rename(replaced, join(base, "replaced-old"));
    await symlink(outside, replaced);
    const context = {
      signal: new AbortController().signal,
      callId: "c1",
      caller: "direct" as const,
      programId: undefined,
    };
    const error = await Promise.resolve(readFileTool.execute({ path: "secret.txt" }, context)).catch(
      (thrown: ToolError) => thrown,
    );
    expect((error as ToolError).code).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("refuses a root that is not an existing folder at construction", () => {
    expect(() => createWorkspaceTools({ root: join(base, "missing") })).toThrow(SwitchyardError);
    expect(() => createWorkspaceTools({ root: "" })).toThrow(SwitchyardError);
    expect(() => createWorkspaceTools({ root, maxReadBytes: 0 })).toThrow(/maxReadBytes/);
  });
});

describe("workspace tools in a program", () => {
  it("writes a file and reads it back, with paths relative to the workspace", async () => {
    const result = await run(`
      const written = await tools.workspace.writeFile({ path: "out/hello.txt", content: "héllo\\n", createDirectories: true });
      const read = await tools.workspace.readFile({ path: "out/hello.txt" });
      const stat = await tools.workspace.stat({ path: "out/hello.txt" });
      const missing = await tools.workspace.stat({ path: "out/nope.txt" });
      return { written, read, stat: { path: stat.path, type: stat.type, size: stat.size }, missing };
    `);
    expect(result.output).toEqual({
      written: { path: "out/hello.txt", bytesWritten: 7, size: 7, created: true },
      read: {
        path: "out/hello.txt",
        encoding: "utf8",
        content: "héllo\n",
        size: 7,
        offset: 0,
        bytesRead: 7,
        eof: true,
      },
      stat: { path: "out/hello.txt", type: "file", size: 7 },
      missing: { path: "out/nope.txt", exists: false },
    });
  });

  it("serializes 20 parallel appends to one file: every line intact, in call order", async () => {
    const result = await run(`
      await Promise.all(Array.from({ length: 20 }, (_, index) =>
        tools.workspace.writeFile({ path: "log.txt", content: "line " + index + " " + "-".repeat(40) + "\\n", mode: "append" })));
      return (await tools.workspace.readFile({ path: "log.txt" })).content;
    `);
    const expected = Array.from({ length: 20 }, (_, index) => `line ${index} ${"-".repeat(40)}\n`).join("");
    expect(result.output).toBe(expected);
    expect(await readFile(join(root, "log.txt"), "utf8")).toBe(expected);
  });

  it("refuses paths that leave the workspace, for reads and writes, and writes nothing outside", async () => {
    const result = await run(`
      const codes = [];
      for (const call of [
        () => tools.workspace.readFile({ path: "../outside/secret.txt" }),
        () => tools.workspace.readFile({ path: ${JSON.stringify(join(outside, "secret.txt"))} }),
        () => tools.workspace.readFile({ path: "secret-link" }),
        () => tools.workspace.readFile({ path: "outside-folder/secret.txt" }),
        () => tools.workspace.writeFile({ path: "secret-link", content: "pwned" }),
        () => tools.workspace.writeFile({ path: "outside-folder/new.txt", content: "pwned" }),
        () => tools.workspace.writeFile({ path: "outside-folder/sub/new.txt", content: "pwned", createDirectories: true }),
        () => tools.workspace.listDir({ path: "outside-folder" }),
        () => tools.workspace.search({ text: "secret", path: "outside-folder" }),
        () => tools.workspace.stat({ path: "secret-link" }),
      ]) {
        try { await call(); codes.push("no error"); } catch (error) { codes.push(error.code); }
      }
      return { codes };
    `);
    expect((result.output as { codes: string[] }).codes).toEqual(
      Array.from({ length: 10 }, () => "PATH_OUTSIDE_WORKSPACE"),
    );
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    await expect(readFile(join(outside, "new.txt"))).rejects.toThrow();
    await expect(readFile(join(outside, "sub", "new.txt"))).rejects.toThrow();
    expect(result.calls.every((call) => call.status === "denied")).toBe(true);
  });

  it("lists a folder, recursively in name order, without following symlinks", async () => {
    const result = await run(`
      const top = await tools.workspace.listDir({});
      const deep = await tools.workspace.listDir({ path: "src", recursive: true });
      return { top: top.entries.map((entry) => entry.path + ":" + entry.type), deep: deep.entries, truncated: deep.truncated };
    `);
    const output = result.output as { top: string[]; deep: unknown[]; truncated: boolean };
    expect(output.top).toEqual(
      expect.arrayContaining([
        "README.md:file",
        "docs:directory",
        "outside-folder:symlink",
        "secret-link:symlink",
        "src:directory",
      ]),
    );
    expect(output.deep).toEqual([
      { name: "deep", path: "src/deep", type: "directory", size: 0 },
      { name: "util.ts", path: "src/deep/util.ts", type: "file", size: 26 },
      { name: "index.ts", path: "src/index.ts", type: "file", size: 48 },
    ]);
    expect(output.truncated).toBe(false);
  });

  it("stops a listing at maxListEntries and says it was truncated", async () => {
    await mkdir(join(root, "many"), { recursive: true });
    await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        writeFile(join(root, "many", `f${String(index).padStart(2, "0")}.txt`), ""),
      ),
    );
    const result = await run(
      `const listing = await tools.workspace.listDir({ path: "many" }); return { count: listing.entries.length, truncated: listing.truncated };`,
    );
    expect(result.output).toEqual({ count: 50, truncated: true });
  });

  it("searches by glob, by text, and by both, skipping binary and oversized files", async () => {
    const result = await run(`
      const markdown = await tools.workspace.search({ glob: "**/*.md" });
      const typescript = await tools.workspace.search({ glob: "src/**/*.{ts,js}" });
      const todo = await tools.workspace.search({ text: "TODO" });
      const todoInTs = await tools.workspace.search({ text: "todo", glob: "**/*.ts", ignoreCase: true });
      const limited = await tools.workspace.search({ glob: "many/*", maxResults: 3 });
      return { markdown, typescript, todo, todoInTs, limited: { count: limited.results.length, truncated: limited.truncated } };
    `);
    const output = result.output as Record<string, { results: { path: string }[]; skipped: Record<string, number> }>;
    expect(output["markdown"]!.results.map((match) => match.path)).toEqual(["README.md", "docs/guide.md"]);
    expect(output["typescript"]!.results.map((match) => match.path)).toEqual(["src/deep/util.ts", "src/index.ts"]);
    expect(output["todo"]!.results).toEqual([
      { path: "README.md", line: 2, column: 1, preview: "TODO: write docs" },
      { path: "src/index.ts", line: 2, column: 4, preview: "// TODO fix" },
    ]);
    expect(output["todo"]!.skipped).toEqual({ tooLarge: 1, binary: 1, unreadable: 0 });
    expect(output["todoInTs"]!.results.map((match) => (match as { line?: number }).line)).toEqual([2, 3]);
    expect(output["limited"]).toEqual({ count: 3, truncated: true });
  });

  it("refuses a search with neither glob nor text, and an invalid glob", async () => {
    const none = await run(codeOf("tools.workspace.search({})"));
    expect((none.output as { code: string }).code).toBe("INPUT_INVALID");
    const badGlob = await run(codeOf('tools.workspace.search({ glob: "{a,b" })'));
    expect((badGlob.output as { code: string }).code).toBe("PATTERN_INVALID");
  });

  it("caps reads: FILE_TOO_LARGE without a length, pages with offset and length", async () => {
    const tooLarge = await run(codeOf('tools.workspace.readFile({ path: "big.txt" })'));
    expect(tooLarge.output).toMatchObject({ code: "FILE_TOO_LARGE" });
    expect((tooLarge.output as { message: string }).message).toMatch(/offset and length/);
    const paged = await run(`
      const first = await tools.workspace.readFile({ path: "big.txt", length: 2000 });
      const rest = await tools.workspace.readFile({ path: "big.txt", offset: first.bytesRead, length: 2000 });
      return { first: [first.bytesRead, first.eof], rest: [rest.offset, rest.bytesRead, rest.eof, rest.content.endsWith("big file\\n")] };
    `);
    expect(paged.output).toEqual({ first: [2000, false], rest: [2000, 1027, true, true] });
    const overLimit = await run(codeOf('tools.workspace.readFile({ path: "big.txt", length: 4096 })'));
    expect(overLimit.output).toMatchObject({ code: "INPUT_INVALID" });
  });

  it("caps writes with FILE_TOO_LARGE and writes nothing", async () => {
    const result = await run(codeOf('tools.workspace.writeFile({ path: "too-big.txt", content: "y".repeat(1025) })'));
    expect(result.output).toMatchObject({ code: "FILE_TOO_LARGE" });
    await expect(readFile(join(root, "too-big.txt"))).rejects.toThrow();
  });

  it("reads binary files as base64 only, and writes base64 content as bytes", async () => {
    const result = await run(`
      let utf8Code;
      try { await tools.workspace.readFile({ path: "image.png" }); } catch (error) { utf8Code = error.code; }
      const image = await tools.workspace.readFile({ path: "image.png", encoding: "base64" });
      await tools.workspace.writeFile({ path: "copy.png", content: image.content, encoding: "base64" });
      let badBase64;
      try { await tools.workspace.writeFile({ path: "bad.bin", content: "not base64!", encoding: "base64" }); } catch (error) { badBase64 = error.code; }
      return { utf8Code, content: image.content, badBase64 };
    `);
    expect(result.output).toEqual({ utf8Code: "BINARY_FILE", content: "iVBORwAAAQI=", badBase64: "CONTENT_INVALID" });
    expect(await readFile(join(root, "copy.png"))).toEqual(await readFile(join(root, "image.png")));
  });

  it("reports create-mode clashes, missing folders and folders read as files with their own codes", async () => {
    const result = await run(`
      const codes = [];
      for (const call of [
        () => tools.workspace.writeFile({ path: "README.md", content: "x", mode: "create" }),
        () => tools.workspace.writeFile({ path: "no/such/folder.txt", content: "x" }),
        () => tools.workspace.readFile({ path: "docs" }),
        () => tools.workspace.readFile({ path: "docs/missing.md" }),
        () => tools.workspace.listDir({ path: "README.md" }),
        () => tools.workspace.writeFile({ path: ".", content: "x" }),
      ]) {
        try { await call(); codes.push("no error"); } catch (error) { codes.push(error.code + ": " + error.message); }
      }
      return codes;
    `);
    const codes = result.output as string[];
    expect(codes.map((entry) => entry.split(":")[0])).toEqual([
      "ALREADY_EXISTS",
      "NOT_FOUND",
      "NOT_A_FILE",
      "NOT_FOUND",
      "NOT_A_DIRECTORY",
      "NOT_A_FILE",
    ]);
    expect(codes[1]).toMatch(/createDirectories/);
    expect(await readFile(join(root, "README.md"), "utf8")).toBe("# Project\nTODO: write docs\n");
  });

  it("overwrites by default and appends on request", async () => {
    const result = await run(`
      await tools.workspace.writeFile({ path: "note.txt", content: "a long first version\\n" });
      await tools.workspace.writeFile({ path: "note.txt", content: "short\\n" });
      const appended = await tools.workspace.writeFile({ path: "note.txt", content: "more\\n", mode: "append" });
      return { appended, content: (await tools.workspace.readFile({ path: "note.txt" })).content };
    `);
    expect(result.output).toEqual({
      appended: { path: "note.txt", bytesWritten: 5, size: 11, created: false },
      content: "short\nmore\n",
    });
  });
});

describe("workspace tools and hard links", () => {
  it("neither reads nor writes a file hard-linked to a file outside the workspace", async () => {
    const secret = join(outside, "linked-secret.txt");
    await writeFile(secret, "outside only\n");
    await link(secret, join(root, "hard-link.txt"));
    const result = await run(`
      const read = await tools.workspace.readFile({ path: "hard-link.txt" }).then((value) => value.content, (error) => error.code);
      const overwrite = await tools.workspace.writeFile({ path: "hard-link.txt", content: "pwned" }).then(() => "written", (error) => error.code);
      const append = await tools.workspace.writeFile({ path: "hard-link.txt", content: "pwned", mode: "append" }).then(() => "written", (error) => error.code);
      const found = await tools.workspace.search({ text: "outside only" });
      return { read, overwrite, append, results: found.results.length, unreadable: found.skipped.unreadable };
    `);
    expect(result.output).toEqual({
      read: "PATH_OUTSIDE_WORKSPACE",
      overwrite: "PATH_OUTSIDE_WORKSPACE",
      append: "PATH_OUTSIDE_WORKSPACE",
      results: 0,
      unreadable: 1,
    });
    expect(await readFile(secret, "utf8")).toBe("outside only\n");
    await unlink(join(root, "hard-link.txt"));
  });
});

describe("the per-run write quota", () => {
  let quotaRoot: string;
  let quotaYard: Switchyard;

  beforeAll(async () => {
    quotaRoot = join(base, "quota");
    await mkdir(quotaRoot);
    quotaYard = new Switchyard({
      tools: createWorkspaceTools({ root: quotaRoot, maxWriteBytesPerRun: 1000, maxFilesWrittenPerRun: 3 }),
      typeCheck: "off",
    });
  });

  const write = (path: string, bytes: number): string =>
    `await tools.workspace.writeFile({ path: "${path}", content: "x".repeat(${bytes}) }).then(() => "ok", (error) => error.code)`;

  it("stops a run past its bytes with WRITE_QUOTA_EXCEEDED, writes nothing more, and gives the next run a fresh quota", async () => {
    const first = await quotaYard.run(
      `return [${write("a.txt", 400)}, ${write("b.txt", 400)}, ${write("c.txt", 400)}];`,
    );
    expect(first.output).toEqual(["ok", "ok", "WRITE_QUOTA_EXCEEDED"]);
    await expect(stat(join(quotaRoot, "c.txt"))).rejects.toThrow();
    const second = await quotaYard.run(`return [${write("c.txt", 400)}];`);
    expect(second.output).toEqual(["ok"]);
  });

  it("counts distinct files: rewriting a file already written is no new file", async () => {
    const result = await quotaYard.run(
      `return [${write("f1", 1)}, ${write("f2", 1)}, ${write("f3", 1)}, ${write("f3", 1)}, ${write("f4", 1)}];`,
    );
    expect(result.output).toEqual(["ok", "ok", "ok", "ok", "WRITE_QUOTA_EXCEEDED"]);
  });

  it("holds for parallel writes of one run", async () => {
    const result = await quotaYard.run(
      `return await Promise.all(Array.from({ length: 10 }, (_, i) => tools.workspace.writeFile({ path: "p" + (i % 2), content: "x".repeat(150) }).then(() => "ok", (error) => error.code)));`,
    );
    const outcomes = result.output as string[];
    expect(outcomes.filter((outcome) => outcome === "ok")).toHaveLength(6);
    expect(outcomes.filter((outcome) => outcome === "WRITE_QUOTA_EXCEEDED")).toHaveLength(4);
  });

  it("checks a direct call on its own", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const outcome = await quotaYard.callTool("workspace.writeFile", { path: "direct.txt", content: "x".repeat(900) });
      expect(outcome.status).toBe("ok");
    }
  });

  it("refuses a quota that is not a positive integer", () => {
    expect(() => createWorkspaceTools({ root: quotaRoot, maxWriteBytesPerRun: 0 })).toThrow(/maxWriteBytesPerRun/);
    expect(() => createWorkspaceTools({ root: quotaRoot, maxFilesWrittenPerRun: 1.5 })).toThrow(
      /maxFilesWrittenPerRun/,
    );
  });
});
