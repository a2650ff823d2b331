// A long text cut for size must not keep a secret's head: the guest cuts a console line at 4,096
// characters and an error at 8,192 before the host's redactor sees them, and the validator quotes
// 77 characters of a wrong value; a cut 1 to 3 characters into a token left a head that no rule
// recognises (the host's cut-head rules start at 4 and 8 characters). Cuts now fall at a word's start.

import { describe, expect, it } from "vitest";
import { capErrorText, MAX_LOG_LINE_CHARS, wordCut } from "../../runtime/wire.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { createCanaries } from "./canaries.js";

const TOKEN = createCanaries().find((canary) => canary.kind === "github-token")?.secret as string;

/** A session whose one tool hands out the token, as a vault or a config reader would. */
function vaultSession(): Switchyard {
  return new Switchyard({
    tools: [
      defineTool({
        name: "vault.read",
        description: "Reads the token.",
        inputSchema: { type: "object" },
        execute: () => ({ token: TOKEN }),
      }),
    ],
  });
}

/** The characters just before a cut marker, in every place `text` has one. */
function beforeMarkers(text: string, marker: string): string[] {
  return text
    .split(marker)
    .slice(0, -1)
    .map((part) => part.slice(-12));
}

describe("cuts for size never keep a secret's head", () => {
  it("cuts a console line 1, 2 or 3 characters into a token before the token, and nothing of it is shown", async () => {
    const yard = vaultSession();
    const result = await yard.run(
      `const { token } = await tools.vault.read({});
      for (const head of [1, 2, 3]) console.log(" ".repeat(${MAX_LOG_LINE_CHARS} - head) + token + " and more");
      return "done";`,
    );
    expect(result.output).toBe("done");
    const logs = result.logs.join("\n");
    expect(logs.match(/line cut at/g)).toHaveLength(3);
    for (const before of beforeMarkers(logs, "… [line cut at")) expect(before).toMatch(/^\s*$/);
    expect(logs).not.toContain(`${TOKEN.slice(0, 1)}… `);
    await yard.close();
  });

  it("cuts an error message the guest quotes (a toJSON that throws) 1, 2 or 3 characters into a token before it", async () => {
    const yard = vaultSession();
    // The guest quotes the thrown message cut to 1,024 characters; the host's own cut is longer.
    const messageOf = async (expression: string): Promise<string> =>
      (
        await yard.run(
          `const { token } = await tools.vault.read({}); return { toJSON() { throw new Error(${expression}); } };`,
        )
      ).error?.message ?? "";
    // Where the cut falls: a message of blanks keeps this many.
    const blank = await messageOf(`" ".repeat(2000)`);
    const kept = /not JSON-serializable: ( *)… \[cut:/.exec(blank)?.[1]?.length ?? 0;
    expect(kept).toBeGreaterThan(900);
    for (const head of [1, 2, 3]) {
      const message = await messageOf(`" ".repeat(${kept - head}) + token`);
      expect(message).toMatch(/… \[cut: \d+ characters in all\]/);
      for (const before of beforeMarkers(message, "… [cut:")) expect(before, `head ${head}`).toMatch(/^\s*$/);
    }
    await yard.close();
  });

  it("quotes a wrong value in INPUT_INVALID without a token's head", async () => {
    const yard = new Switchyard({
      tools: [
        defineTool({
          name: "math.half",
          description: "Halves n.",
          inputSchema: { type: "object", properties: { n: { type: "number" } } },
          execute: (input: { n: number }) => input.n / 2,
        }),
      ],
    });
    const outcome = await yard.callTool("math.half", { n: `${"x".repeat(60)} ${TOKEN}` });
    expect(outcome.status).toBe("invalid");
    const text = JSON.stringify(outcome);
    expect(text).toMatch(/x{20}/);
    expect(text).not.toContain(TOKEN.slice(0, 4));
    await yard.close();
  });
});

describe("wordCut", () => {
  it("moves a cut inside a word back to the word's start, and leaves a cut between words", () => {
    expect(wordCut("abc defgh ij", 6)).toBe(4);
    expect(wordCut("abc defgh ij", 4)).toBe(4);
    expect(wordCut("abc defgh ij", 3)).toBe(3);
    expect(wordCut('{"token":"ghp_x"}', 12)).toBe(10);
    expect(wordCut("nospaces", 4)).toBe(0);
  });

  it("keeps a word longer than 256 characters up to its last non-token character, or whole", () => {
    const long = `a ${"k".repeat(300)}!${"z".repeat(10)}`;
    expect(wordCut(long, long.length - 5)).toBe(long.length - 10);
    const base64 = `a ${"Q".repeat(400)}`;
    expect(wordCut(base64, 350)).toBe(350);
  });

  it("gives capErrorText a text that ends before the split word, within its limit", () => {
    const text = `${"word ".repeat(20)}${TOKEN}`;
    const capped = capErrorText(text, 132);
    expect(capped.length).toBeLessThanOrEqual(132);
    expect(capped).toMatch(/word … \[cut: \d+ characters in all\]$/);
  });
});
