// Redaction at the session's boundary to the model, with real isolates: canaries of every kind
// returned by a tool, thrown in an error, printed and returned by a program never reach what
// the session hands back, while the program itself works with the whole values.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolOutcome } from "../src/contract.js";
import { ToolError } from "../src/errors.js";
import { defineTool, type ToolDefinition } from "../src/registry/define-tool.js";
import { SpillStore } from "../src/results/spill-store.js";
import { Switchyard, type SwitchyardOptions } from "../src/switchyard.js";
import type { TraceEvent } from "../src/trace/trace-events.js";
import { createCanaries, leakedSecrets } from "./redaction/canaries.js";
import { tempFolder } from "./helpers/mcp-servers.js";

const canaries = createCanaries();
const allText = canaries.map((canary) => canary.text).join("\n");
const kinds = canaries.map((canary) => canary.kind);
/** Canaries a format gives away alone; the others are caught with the text around them. */
const standalone = canaries.filter((canary) => canary.standalone);

function countKinds(list: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of list) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

/** vault.read returns every canary; vault.check says whether a value is one of them, whole; vault.fail throws them. */
function vaultTools(): { tools: ToolDefinition[]; checked: string[] } {
  const checked: string[] = [];
  const tools = [
    defineTool({
      name: "vault.read",
      description: "Reads the credentials file.",
      effect: "read",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: () => ({
        file: ".env",
        lines: canaries.map((canary) => canary.text),
        secrets: canaries.map((canary) => canary.secret),
      }),
    }),
    defineTool({
      name: "vault.check",
      description: "Checks that a secret arrived whole.",
      effect: "read",
      inputSchema: {
        type: "object",
        properties: { value: { type: "string" } },
        required: ["value"],
        additionalProperties: false,
      },
      execute: (input: { value: string }) => {
        checked.push(input.value);
        return { whole: canaries.some((canary) => canary.secret === input.value) };
      },
    }),
    defineTool({
      name: "vault.fail",
      description: "Fails with the credentials in its message.",
      effect: "read",
      inputSchema: { type: "object", properties: { typed: { type: "boolean" } }, additionalProperties: false },
      execute: (input: { typed?: boolean }) => {
        if (input.typed === true)
          throw new ToolError(`rejected ${canaries[0]!.secret}`, { code: "BAD_TOKEN", details: { lines: [allText] } });
        throw new Error(`could not log in with:\n${allText}`);
      },
    }),
  ];
  return { tools, checked };
}

const sessions: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((yard) => yard.close()));
});

function session(options: SwitchyardOptions = {}): { yard: Switchyard; events: TraceEvent[]; checked: string[] } {
  const { tools, checked } = vaultTools();
  const yard = new Switchyard({ typeCheck: "off", ...options, tools: [...tools, ...(options.tools ?? [])] });
  sessions.push(yard);
  const events: TraceEvent[] = [];
  yard.trace.subscribe((event) => events.push(event));
  return { yard, events, checked };
}

describe("redaction of direct calls", () => {
  it("replaces every canary in a tool's result, counts them by kind and traces each by path", async () => {
    const { yard, events } = session();
    const outcome = await yard.callTool("vault.read", {}, { callId: "c1" });
    expect(outcome.status).toBe("ok");
    const value = (outcome as Extract<ToolOutcome, { status: "ok" }>).value as {
      file: string;
      lines: string[];
      secrets: string[];
    };
    expect(value.file).toBe(".env");
    expect(value.lines[0]).toBe("GITHUB_TOKEN=[REDACTED:github-token]");
    expect(leakedSecrets(JSON.stringify(value.lines), canaries)).toEqual([]);
    // Alone, a secret is recognised by its format; a password or an AWS secret key is not (see Canary.standalone).
    expect(leakedSecrets(JSON.stringify(value.secrets), standalone)).toEqual([]);
    const contextual = canaries.filter((canary) => !canary.standalone).map((canary) => canary.secret);
    expect(value.secrets.filter((secret) => contextual.includes(secret))).toHaveLength(contextual.length);
    expect(outcome.redactions).toEqual(countKinds([...kinds, ...standalone.map((canary) => canary.kind)]));
    const traced = events.filter((event) => event.type === "redaction");
    expect(traced).toHaveLength(canaries.length + standalone.length);
    expect(traced[0]).toMatchObject({
      kind: "github-token",
      location: "call-result",
      callId: "c1",
      path: "$.lines[0]",
    });
    expect(leakedSecrets(JSON.stringify(events), canaries)).toEqual([]);
  });

  it("replaces canaries in a thrown error's message and in a ToolError's details", async () => {
    const { yard } = session();
    const thrown = await yard.callTool("vault.fail", {});
    expect(thrown).toMatchObject({ status: "error", error: { code: "TOOL_ERROR" } });
    expect(leakedSecrets(JSON.stringify(thrown), canaries)).toEqual([]);
    expect(thrown.redactions).toEqual(countKinds(kinds));
    const typed = await yard.callTool("vault.fail", { typed: true });
    expect(typed).toMatchObject({
      status: "error",
      error: { code: "BAD_TOKEN", message: "rejected [REDACTED:github-token]" },
    });
    expect(leakedSecrets(JSON.stringify(typed), canaries)).toEqual([]);
  });

  // Found from outside (2026-12-03): each of these reached a direct call's answer whole.
  it("redacts a class instance and a URL in a ToolError's details, and a secret in the tool's own error code", async () => {
    const github = canaries[0]!.secret;
    class Headers {
      readonly authorization = `Bearer ${github}`;
    }
    const listed = "Tr0ubadour-and-3-horses";
    const { yard } = session({
      redaction: { secrets: [{ value: listed, kind: "db-password" }] },
      tools: [
        defineTool({
          name: "api.get",
          description: "Calls the upstream API.",
          inputSchema: { type: "object" },
          execute: () => {
            throw new ToolError("upstream refused", {
              code: `AUTH_FAILED_${github}`,
              // Not JSON data, as a JavaScript tool (or a cast) can hand over: an SDK's headers object, a URL.
              details: { headers: new Headers(), url: new URL(`https://bob:${listed}@db.example.com/`) } as never,
            });
          },
        }),
      ],
    });
    const failed = await yard.callTool("api.get", {});
    if (failed.status === "ok") throw new Error("api.get answered");
    expect(failed.error.details).toEqual({
      headers: { authorization: "Bearer [REDACTED:github-token]" },
      url: "https://bob:[REDACTED:db-password]@db.example.com/",
    });
    expect(failed.error.code).toBe("AUTH_FAILED_[REDACTED:github-token]");
    expect(JSON.stringify(failed)).not.toContain(github);
    expect(JSON.stringify(failed)).not.toContain(listed);
    const run = await yard.run("try { await tools.api.get({}); } catch { } return 1;");
    expect(run.calls[0]?.code).toBe("AUTH_FAILED_[REDACTED:github-token]");
  });

  it("redacts a password named only by its key, and a listed secret of digits written as a number", async () => {
    const password = "Hunter2x!9zz";
    const aws = "k9Zp2Qw8Rt5Ym1Xv7Bn4Lc6Hd3Fg0Js8Ua2Ie5Oq";
    const { yard } = session({
      redaction: { secrets: [{ value: "4111111111111111", kind: "card" }] },
      tools: [
        defineTool({
          name: "cfg.db",
          description: "Reads the database settings.",
          inputSchema: { type: "object" },
          execute: () => ({
            host: "db.internal",
            password,
            DB_PASSWORD: password,
            aws_secret_access_key: aws,
            card: 4111111111111111,
            port: 5432,
          }),
        }),
      ],
    });
    const expected = {
      host: "db.internal",
      password: "[REDACTED:password]",
      DB_PASSWORD: "[REDACTED:password]",
      aws_secret_access_key: "[REDACTED:aws-secret-access-key]",
      card: "[REDACTED:card]",
      port: 5432,
    };
    expect(await yard.callTool("cfg.db", {})).toMatchObject({ status: "ok", value: expected });
    const run = await yard.run("const settings = await tools.cfg.db({}); return settings;");
    expect(run.output).toEqual(expected);
  });

  it("redacts before the result budget: the preview, the spilled file and every results.read page hold no canary", async () => {
    const spillFolder = tempFolder("redaction-spill");
    try {
      const big = defineTool({
        name: "logs.dump",
        description: "Dumps a large log.",
        effect: "read",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        execute: () => `${allText}\n${"ordinary log line\n".repeat(3_000)}${allText}`,
      });
      const { yard } = session({ tools: [big], results: { spill: new SpillStore(spillFolder.path) } });
      const outcome = await yard.callTool("logs.dump", {});
      const preview = (outcome as Extract<ToolOutcome, { status: "ok" }>).value as { handle: string; spilled: boolean };
      expect(preview.spilled).toBe(true);
      expect(leakedSecrets(JSON.stringify(preview), canaries)).toEqual([]);
      const pages: string[] = [];
      for (let offset = 0, done = false; !done; ) {
        const page = await yard.callTool("results.read", { handle: preview.handle, offset, length: 4096 });
        const slice = (page as Extract<ToolOutcome, { status: "ok" }>).value as { text: string; done: boolean };
        expect(page.redactions).toBeUndefined();
        pages.push(slice.text);
        offset += 4096;
        done = slice.done;
      }
      const whole = pages.join("");
      expect(whole).toContain("[REDACTED:github-token]");
      expect(leakedSecrets(whole, canaries)).toEqual([]);
      const files = readdirSync(spillFolder.path);
      expect(files).toHaveLength(1);
      expect(leakedSecrets(readFileSync(join(spillFolder.path, files[0]!), "utf8"), canaries)).toEqual([]);
    } finally {
      spillFolder.remove();
    }
  });

  it("leaves a tool's results whole when the tool says redaction: false, and everything when the session does", async () => {
    const raw = defineTool({
      name: "raw.read",
      description: "Returns the credentials unredacted.",
      effect: "read",
      redaction: false,
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: () => allText,
    });
    const { yard } = session({ tools: [raw] });
    const outcome = await yard.callTool("raw.read", {});
    expect(outcome).toMatchObject({ status: "ok", value: allText });
    expect(outcome.redactions).toBeUndefined();

    const off = session({ redaction: false }).yard;
    const whole = await off.callTool("vault.read", {});
    expect(JSON.stringify(whole)).toContain(canaries[0]!.secret);
    expect(whole.redactions).toBeUndefined();
    const run = await off.run(`return (await tools.vault.read({})).secrets;`, { typeCheck: "off" });
    expect(run.output).toEqual(canaries.map((canary) => canary.secret));
    expect(run.redactions).toBeUndefined();
  });

  it("rejects a non-boolean redaction flag on a tool", () => {
    expect(() =>
      defineTool({
        name: "bad.flag",
        description: "x",
        inputSchema: { type: "object" },
        // @ts-expect-error: the flag is a boolean
        redaction: "off",
        execute: () => null,
      }),
    ).toThrow(/redaction must be a boolean/);
  });

  it("redacts the session's own secrets and their encoded forms as the kind given", async () => {
    const secret = "crm-7f3a9c2e41";
    const echo = defineTool({
      name: "crm.echo",
      description: "Echoes what the CRM said.",
      effect: "read",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: () => ({
        plain: `token ${secret}`,
        query: `?token=${encodeURIComponent(secret)}`,
        basic: Buffer.from(`api:${secret}`).toString("base64"),
      }),
    });
    const { yard } = session({ tools: [echo], redaction: { secrets: [{ value: secret, kind: "env:CRM_TOKEN" }] } });
    const outcome = await yard.callTool("crm.echo", {});
    expect(JSON.stringify(outcome)).not.toContain(secret);
    expect(JSON.stringify(outcome)).not.toContain(Buffer.from(secret).toString("base64").slice(2, 14));
    expect(outcome.redactions).toEqual({ "env:CRM_TOKEN": 3 });
  });
});

describe("redaction of programs", () => {
  it("hands the program whole values, and the model a redacted output, log and count", async () => {
    const { yard, events, checked } = session();
    const result = await yard.run(`
      const { lines, secrets } = await tools.vault.read({});
      const checks = [];
      for (const [index, value] of secrets.entries()) {
        checks.push((await tools.vault.check({ value })).whole);
        console.log("using", lines[index]);
      }
      return { allWhole: checks.every(Boolean), count: checks.length, lines };
    `);
    expect(result.ok, result.error?.message).toBe(true);
    // Inside the program every value was whole: the check tool got each canary exactly.
    expect(checked).toEqual(canaries.map((canary) => canary.secret));
    expect(result.output).toMatchObject({ allWhole: true, count: canaries.length });
    expect(leakedSecrets(JSON.stringify(result), canaries)).toEqual([]);
    // Each canary once in the output and once in the logs.
    expect(result.redactions).toEqual(countKinds([...kinds, ...kinds]));
    const traced = events.filter((event) => event.type === "redaction");
    expect(traced.some((event) => event.type === "redaction" && event.location === "program-logs")).toBe(true);
    expect(traced.every((event) => event.type === "redaction" && event.programId === result.programId)).toBe(true);
    expect(leakedSecrets(JSON.stringify(events), canaries)).toEqual([]);
  });

  it("redacts a canary thrown by the program, and one in a failed call's message the program rethrows", async () => {
    const { yard } = session();
    const thrown = await yard.run(`
      const { lines } = await tools.vault.read({});
      throw new Error("cannot use " + lines.join("\\n"));
    `);
    expect(thrown.error?.code).toBe("RUNTIME_ERROR");
    expect(leakedSecrets(JSON.stringify(thrown), canaries)).toEqual([]);
    expect(thrown.redactions).toEqual(countKinds(kinds));
    const rethrown = await yard.run(`await tools.vault.fail({});`);
    expect(rethrown.error?.message).toContain("[REDACTED:github-token]");
    expect(leakedSecrets(JSON.stringify(rethrown), canaries)).toEqual([]);
  });

  it("redacts a token before a long message or log line is cut in the middle of it", async () => {
    const token = canaries[0]!.secret;
    const long = defineTool({
      name: "logs.fail",
      description: "Fails with a long message.",
      effect: "read",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: () => {
        throw new Error(`${"context ".repeat(245)}${token}${" and more".repeat(5)}`);
      },
    });
    const { yard } = session({ tools: [long] });
    const failed = await yard.callTool("logs.fail", {});
    // The message is cut at 2 000 characters, inside where the token was: it was redacted first.
    expect(failed.status).toBe("error");
    const message = (failed as Exclude<ToolOutcome, { status: "ok" }>).error.message;
    expect(message.length).toBeLessThanOrEqual(2_000);
    // The cut would fall inside the replacement, not inside the token (1,960 characters of context,
    // then the cut marker at 1,969), and moves back to the replacement's start (wordCut).
    expect(message.endsWith("context [… [cut: 2028 characters in all]")).toBe(true);
    expect(failed.redactions).toEqual({ "github-token": 1 });
    expect(message).not.toContain(token.slice(4, 12));

    // The sandbox cuts a console line at 4 096 characters, here 16 characters into the token: the
    // cut moves back to the token's start, so nothing of it is left to redact.
    const run = await yard.run(`console.log("w ".repeat(2040) + ${JSON.stringify(token)}); return 1;`);
    expect(run.logs[0]).toMatch(/w … \[line cut at 4096 characters\]$/);
    expect(run.logs[0]).not.toContain(token.slice(0, 4));
    expect(run.redactions).toBeUndefined();
  });

  it("leaves no part of a token that a program's uncaught tool error quotes just before the 2,000-character cut", async () => {
    const token = canaries[0]!.secret;
    const long = defineTool({
      name: "api.fail",
      description: "Fails with a long message.",
      effect: "read",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: () => {
        throw new Error(`${"request failed, retrying. ".repeat(75)}token ${token} ${"x".repeat(200)}`);
      },
    });
    const { yard } = session({ tools: [long] });
    const run = await yard.run("await tools.api.fail({}); return 1;");
    expect(run.error?.code).toBe("RUNTIME_ERROR");
    for (let start = 0; start + 8 <= token.length; start++) {
      expect(run.error?.message, `characters ${start}-${start + 8}`).not.toContain(token.slice(start, start + 8));
    }
    // The program itself got the message cut before the token, not a redacted one.
    const caught = await yard.run(
      "try { await tools.api.fail({}); } catch (error) { return (error as Error).message.length; } return 0;",
    );
    expect(caught.output).toBeLessThanOrEqual(2_000);
    expect(caught.redactions).toBeUndefined();
  });

  // Found from outside (2026-12-03): after 256 letters of one case the cut cannot back off to the
  // word's start, and a head of letters alone read as a plain word.
  it("leaves no part of a listed passphrase of letters cut at a log line's limit after a long word", async () => {
    const passphrase = "correcthorsebatterystaple-42";
    const { yard } = session({
      redaction: { secrets: [{ value: passphrase, kind: "passphrase" }] },
      tools: [
        defineTool({
          name: "vault.phrase",
          description: "Reads the passphrase.",
          inputSchema: { type: "object" },
          execute: () => ({ phrase: passphrase }),
        }),
      ],
    });
    const run = await yard.run(
      "const { phrase } = await tools.vault.phrase({}); console.log('q'.repeat(4086) + phrase); return 1;",
    );
    expect(run.logs[0]).toMatch(/\[REDACTED:cut-secret\]… \[line cut at \d+ characters\]$/);
    expect(run.logs[0]).not.toContain("correcthor");
  });

  it("leaves no part of a token in a program's own error cut by the sandbox at 8,192 characters near it", async () => {
    const token = canaries[0]!.secret;
    const { yard } = session();
    // Where the cut falls depends on the failing line quoted after it: try the token at every offset around it.
    let cut = 0;
    // The host cuts to leave room for the quoted line from about 4,025 pairs on (inside the token
    // up to 4,029 with this line), the guest at 8,192 characters from about 4,075.
    for (let pairs = 4_020; pairs <= 4_090; pairs += pairs < 4_034 ? 1 : 7) {
      const run = await yard.run(`throw new Error("y ".repeat(${pairs}) + ${JSON.stringify(token)});`);
      const message = run.error?.message ?? "";
      if (message.includes("… [cut:")) cut++;
      for (let start = 0; start + 8 <= token.length; start++) {
        expect(message, `${pairs}: characters ${start}-${start + 8}`).not.toContain(token.slice(start, start + 8));
      }
    }
    // Cut near the token, at every offset; no cut leaves a part of it (wordCut, capOutsideSecrets).
    expect(cut).toBeGreaterThan(0);
  });

  it("redacts secrets a result printed with console.log carries in JSON, where their quotes are escaped", async () => {
    const { yard } = session();
    const run = await yard.run(
      "const { lines } = await tools.vault.read({}); console.log({ lines }); console.log(lines); return 0;",
    );
    expect(run.logs[0]).toContain('AWS_SECRET_ACCESS_KEY=\\"[REDACTED:aws-secret-access-key]\\"');
    expect(leakedSecrets(run.logs.join("\n"), canaries)).toEqual([]);
  });

  it("redacts a listed secret with a quote in it inside JSON text a tool returned, printed as JSON (escaped twice)", async () => {
    const listed = 'Tr0ub"4dor&3-horse';
    const { yard } = session({
      redaction: { secrets: [{ value: listed, kind: "secret" }] },
      tools: [
        defineTool({
          name: "http.get",
          description: "Fetches a page.",
          inputSchema: { type: "object" },
          execute: () => ({ status: 200, body: JSON.stringify({ user: "app", pw: listed }) }),
        }),
      ],
    });
    const run = await yard.run("const page = await tools.http.get({}); console.log(page); return 0;");
    expect(run.logs[0]).toContain("[REDACTED:secret]");
    expect(run.logs[0]).not.toContain("4dor&3-horse");
  });

  it("redacts warnings and check() diagnostics that quote a secret", async () => {
    const token = canaries[0]!.secret;
    const { yard } = session({ typeCheck: "warn" });
    const source = `const code: { a: number } = { a: 1, ${JSON.stringify(token)}: 2 }; return code;`;
    const run = await yard.run(source);
    expect(run.warnings.length).toBeGreaterThan(0);
    expect(JSON.stringify(run.warnings)).toContain("[REDACTED:github-token]");
    expect(JSON.stringify(run.warnings)).not.toContain(token);
    const checked = await yard.check(source);
    expect(JSON.stringify(checked)).not.toContain(token);
    const strict = session({ typeCheck: "error" }).yard;
    const refused = await strict.run(source);
    expect(refused.error?.code).toBe("TYPE_ERROR");
    expect(JSON.stringify(refused.error)).not.toContain(token);
    expect(JSON.stringify(await strict.check(source))).not.toContain(token);
  });

  it("leaves search and describe answers alone: they are the catalog's own text", async () => {
    const documented = defineTool({
      name: "docs.example",
      description: `Calls the API; example header: Authorization: Bearer ${"a1b2c3d4e5f6g7h8i9j0"}`,
      effect: "read",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: () => null,
    });
    const { yard } = session({ tools: [documented] });
    expect(yard.searchAndLoad("example header").declarations).toContain("Bearer a1b2c3d4e5f6g7h8i9j0");
  });
});
