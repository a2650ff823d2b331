import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { MAX_OBSERVED_TOOLS, ObservedOutputTypes } from "../../src/schema/observed-output-types.js";
import { tempFolder } from "../helpers/mcp-servers.js";

const folders: { remove: () => void }[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) folder.remove();
});
function freshFolder(): string {
  const folder = tempFolder("observed");
  folders.push(folder);
  return folder.path;
}

describe("ObservedOutputTypes", () => {
  it("raises its revision when a tool's shape or count band changes, and only then", () => {
    const types = new ObservedOutputTypes();
    const revisions: number[] = [];
    for (let index = 0; index < 12; index++) {
      types.observe("crm.get", { id: `c${index}`, name: "n" });
      revisions.push(types.revision);
    }
    // First result, second (1 -> 2+), tenth (2+ -> 10+).
    expect(revisions).toEqual([1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3]);
    types.observe("crm.get", { id: "c", name: "n", vip: true });
    expect(types.revision).toBe(4);
    expect(types.snapshot().get("crm.get")).toMatchObject({ results: 13, revision: 4 });
  });

  it("never changes a snapshot taken before a change", () => {
    const types = new ObservedOutputTypes();
    types.observe("crm.get", { id: "a" });
    const before = types.snapshot();
    const schemaBefore = JSON.stringify(before.get("crm.get")?.schema);
    types.observe("crm.get", { id: 1, other: true });
    expect(JSON.stringify(before.get("crm.get")?.schema)).toBe(schemaBefore);
    expect(types.snapshot()).not.toBe(before);
  });

  it("changes nothing for a value it cannot read", () => {
    const types = new ObservedOutputTypes();
    types.observe("crm.get", { n: 1n });
    expect(types.revision).toBe(0);
    expect(types.snapshot().size).toBe(0);
  });

  it(`keeps at most ${MAX_OBSERVED_TOOLS} tools, dropping the least recently observed`, () => {
    const types = new ObservedOutputTypes();
    for (let index = 0; index <= MAX_OBSERVED_TOOLS; index++) types.observe(`t.tool${index}`, { index });
    types.observe("t.tool1", { index: 1 });
    types.observe("t.extra", { index: 0 });
    const names = [...types.snapshot().keys()];
    expect(names).toHaveLength(MAX_OBSERVED_TOOLS);
    expect(names).not.toContain("t.tool0");
    expect(names).not.toContain("t.tool2");
    expect(names).toContain("t.tool1");
  });

  it("tells where a result breaks the type a program was checked against, even after the type widened", () => {
    const types = new ObservedOutputTypes();
    types.observe("crm.get", { id: "a" });
    const expected = types.snapshot().get("crm.get");
    expect(types.observe("crm.get", { id: "b", more: 1 }, expected)).toBeUndefined();
    expect(types.observe("crm.get", { id: 2 }, expected)).toBe("$.id is number, where the type has string");
    // The session's type now allows a number; the program's did not.
    expect(types.observe("crm.get", { id: 3 }, expected)).toBe("$.id is number, where the type has string");
    expect(types.observe("crm.get", { id: 4 }, types.snapshot().get("crm.get"))).toBeUndefined();
    expect(types.observe("crm.get", { id: 5 })).toBeUndefined();
  });
});

describe("ObservedOutputTypes with a file", () => {
  it("writes what it observed and a new instance starts from it", async () => {
    const file = join(freshFolder(), "nested", "observed.json");
    const first = new ObservedOutputTypes({ file });
    first.observe("crm.get", { id: "a", tags: ["x"] });
    first.observe("crm.get", { id: "b", tags: [] });
    await first.save();
    const written = JSON.parse(readFileSync(file, "utf8"));
    expect(written).toMatchObject({ switchyardObservedTypes: 1, tools: { "crm.get": { results: 2 } } });
    const second = new ObservedOutputTypes({ file });
    expect(second.snapshot().get("crm.get")).toEqual({ ...first.snapshot().get("crm.get"), revision: 0 });
  });

  it("writes nothing when nothing changed, and one write at a time when saves overlap", async () => {
    const file = join(freshFolder(), "observed.json");
    const types = new ObservedOutputTypes({ file });
    await types.save();
    expect(existsSync(file)).toBe(false);
    types.observe("a.b", { x: 1 });
    const first = types.save();
    types.observe("a.c", { y: 1 });
    const second = types.save();
    await Promise.all([first, second]);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).tools)).toEqual(["a.b", "a.c"]);
  });

  it("starts empty without the file and refuses a file that is not one of its own", () => {
    const folder = freshFolder();
    expect(new ObservedOutputTypes({ file: join(folder, "absent.json") }).snapshot().size).toBe(0);
    const broken = join(folder, "broken.json");
    writeFileSync(broken, "{ not json");
    expect(() => new ObservedOutputTypes({ file: broken })).toThrow(SwitchyardError);
    const foreign = join(folder, "foreign.json");
    writeFileSync(foreign, JSON.stringify({ tools: {} }));
    expect(() => new ObservedOutputTypes({ file: foreign })).toThrow(/is not an observed-types file/);
  });

  it("reads a hand-edited file defensively: bad entries dropped, counts repaired", () => {
    const file = join(freshFolder(), "edited.json");
    writeFileSync(
      file,
      JSON.stringify({
        switchyardObservedTypes: 1,
        tools: {
          "ok.tool": {
            results: -4,
            schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          },
          "bad.tool": { results: 3, schema: "nope" },
          "null.tool": null,
        },
      }),
    );
    const types = new ObservedOutputTypes({ file });
    expect([...types.snapshot().keys()]).toEqual(["ok.tool"]);
    expect(types.snapshot().get("ok.tool")?.results).toBe(1);
  });

  it("keeps a write failure in lastSaveError and the types in memory", async () => {
    const folder = join(freshFolder(), "sub");
    const types = new ObservedOutputTypes({ file: join(folder, "observed.json") });
    // A regular file where the folder should be: no write can succeed, not even root's.
    writeFileSync(folder, "");
    types.observe("a.b", { x: 1 });
    await types.save();
    expect(types.lastSaveError).toBeInstanceOf(Error);
    expect(types.snapshot().size).toBe(1);
  });
});
