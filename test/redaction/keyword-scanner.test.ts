import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CREDENTIAL_FORMAT_RULES } from "../../src/redaction/credential-formats.js";
import type { Finding } from "../../src/redaction/keyword-rule.js";
import { KeywordScanner } from "../../src/redaction/keyword-scanner.js";
import { encodedForms } from "../../src/redaction/known-secrets.js";
import { Redactor } from "../../src/redaction/redactor.js";
import { secretlintKeywordRules } from "../../src/redaction/secretlint-rules.js";
import { mayHaveUserinfoInJson, passwordRangeInUrl, urlPasswordRule } from "../../src/redaction/url-password.js";
import { createCanaries } from "./canaries.js";

const canaries = createCanaries();

/** What the walk of a value finds, string by string (keys too): the reference the JSON pass must agree with. */
function walkFinds(redactor: Redactor, value: unknown): boolean {
  if (typeof value === "string") return redactor.redactText(value).kinds.length > 0;
  if (Array.isArray(value)) return value.some((item) => walkFinds(redactor, item));
  if (typeof value === "object" && value !== null)
    return Object.entries(value).some(([key, item]) => walkFinds(redactor, key) || walkFinds(redactor, item));
  return false;
}

/** Pieces of strings: canaries and their parts, keywords, near misses, and every kind of JSON escape. */
const PIECES = [
  ...canaries.flatMap((canary) => [canary.text, canary.secret, canary.secret.slice(0, 12)]),
  "://",
  "https://",
  "git+ssh://git@github.com/a/b",
  "u:p4ss-w0rd@host",
  "alice:S3cr3t-pw@example.com/x",
  "https://alice:S3cr3t-pw@example.com/x",
  `Basic ${Buffer.from("alice:pw45678").toString("base64")}`,
  "@",
  ":",
  "/",
  "password",
  "Password=",
  " = ",
  "Bearer ",
  "basic ",
  "Authorization: ",
  "x-api-key: ",
  "ghp_",
  "eyJ",
  "-----BEGIN PRIVATE KEY-----",
  "listed-secret-1",
  'q"uote-secret',
  "\n",
  "\t",
  "\r",
  '"',
  "\\",
  "\u0001",
  "\u001f",
  "\ud800",
  "\udc00",
  "😀",
  "é",
  " ",
  "x",
  "7",
  "_",
];

const piecesString = fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((parts) => parts.join(""));
const jsonValue = fc.oneof(
  piecesString,
  fc.array(piecesString, { maxLength: 4 }),
  fc.dictionary(piecesString, fc.oneof(piecesString, fc.array(piecesString, { maxLength: 3 })), { maxKeys: 4 }),
);

describe("KeywordScanner over JSON text", () => {
  const redactors = {
    default: new Redactor(),
    secrets: new Redactor({ secrets: ["listed-secret-1", 'q"uote-secret', "tab\tsecret"] }),
    "secrets only": new Redactor({ credentialFormats: false, secrets: ['q"uote-secret', "listed-secret-1"] }),
  };

  it.each(Object.entries(redactors))(
    "finds something in a value's JSON exactly when the walk of its strings does (%s)",
    (_name, redactor) => {
      fc.assert(
        fc.property(jsonValue, (value) => {
          const json = JSON.stringify(value);
          const redacted = redactor.redactJson(json);
          expect(redacted !== undefined, json).toBe(walkFinds(redactor, value));
        }),
        { numRuns: 1_500 },
      );
    },
  );

  it("rules out, without decoding a string, JSON whose keywords lead to no secret", () => {
    // The property above holds for a pass that always says "may find"; this is what the pass is for.
    const scanner = new KeywordScanner([...secretlintKeywordRules(), ...CREDENTIAL_FORMAT_RULES, urlPasswordRule]);
    const values = [
      { links: ["https://example.com/a?b=c", "see https://docs.example.org/x\nand git+ssh://github.com/a/b"] },
      { note: "Reset your password from the settings page.\nThe Authorization header is required." },
      { "x-api-key": "", Authorization: "", password: "" },
      ["Bearer tokens expire", "basic usage"],
    ];
    for (const value of values) {
      const json = JSON.stringify(value);
      expect(scanner.mayMatch(json), json).toBe(true);
      expect(scanner.mayFindInJson(json), json).toBe(false);
    }
  });

  it("finds a lowercase keyword right after an escape (a token at the start of a line)", () => {
    const redactor = new Redactor();
    const github = canaries[0]!.secret;
    for (const before of ["\n", "\t", "\r", "\b", "\f", "\u0001", "\u001b", '"', "\\"]) {
      const redacted = redactor.redactJson(JSON.stringify({ log: `first line${before}${github}` }));
      expect(redacted?.json, JSON.stringify(before)).not.toContain(github);
    }
    expect(redactor.redactJson(JSON.stringify(["ok\npassword=Hunter2x!9"]))?.redactions).toEqual([
      { kind: "password", path: "$[0]" },
    ]);
  });

  it("finds a known value in its JSON-escaped form inside a string that holds JSON", () => {
    const redactor = new Redactor({ secrets: ['q"uote-secret'], credentialFormats: false });
    const body = JSON.stringify({ message: 'q"uote-secret' });
    expect(redactor.redactJson(JSON.stringify({ body }))?.redactions).toEqual([{ kind: "secret", path: "$.body" }]);
    for (const form of encodedForms('q"uote-secret'))
      expect(redactor.redactJson(JSON.stringify([`x${form}y`])), form).toBeDefined();
  });

  it("walks every value when a listed secret holds a surrogate, whose JSON form depends on its neighbours", () => {
    const redactor = new Redactor({ secrets: ["key\ud83d\ude00moji"], credentialFormats: false });
    expect(redactor.redactJson(JSON.stringify({ a: "x key\ud83d\ude00moji y" }))?.redactions).toEqual([
      { kind: "secret", path: "$.a" },
    ]);
    expect(redactor.redactJson(JSON.stringify({ a: "nothing here" }))).toBeUndefined();
  });

  it("stays linear on JSON made of keywords (a tool's result can be anything)", () => {
    const redactor = new Redactor();
    const texts = [
      "\\n-eyJ".repeat(40_000),
      "a://".repeat(50_000),
      `a://${"x".repeat(200_000)}@`,
      "\nBearer ".repeat(25_000),
      "\npassword=password=".repeat(10_000),
    ];
    for (const text of texts) {
      const started = performance.now();
      redactor.redactJson(JSON.stringify({ text, list: [text.slice(0, 1000)] }));
      // Generous for a loaded CI machine: a quadratic pass over 200 KB takes minutes, not this.
      expect(performance.now() - started, text.slice(0, 20)).toBeLessThan(5_000);
    }
  });
});

describe("mayReportInJson of every rule that has one", () => {
  const rules = [...secretlintKeywordRules(), ...CREDENTIAL_FORMAT_RULES, urlPasswordRule].filter(
    (rule) => rule.mayReportInJson !== undefined,
  );

  it("covers the rules whose keywords ordinary text is full of", () => {
    expect(rules.map((rule) => rule.name).sort()).toEqual([
      "api-key-header",
      "authorization-header",
      "basic-auth",
      "bearer-token",
      "password",
      "secretlint:basicauth",
      "secretlint:database-connection-string",
      "url-password",
    ]);
  });

  it.each(rules.map((rule) => [rule.name, rule] as const))(
    "is true at every keyword where %s, run on the decoded string, reports a secret",
    (_name, rule) => {
      let reported = 0;
      fc.assert(
        fc.property(piecesString, (text) => {
          const json = JSON.stringify(text);
          for (const keyword of rule.keywords) {
            for (let at = text.indexOf(keyword); at !== -1; at = text.indexOf(keyword, at + 1)) {
              const found: Finding[] = [];
              rule.scan(text, at, found);
              if (found.length === 0) continue;
              reported++;
              const jsonAt = JSON.stringify(text.slice(0, at)).length - 1;
              expect(json.startsWith(keyword, jsonAt)).toBe(true);
              expect(rule.mayReportInJson!(json, jsonAt), text).toBe(true);
            }
          }
        }),
        { numRuns: 2_000 },
      );
      // The property must have been put to the test.
      expect(reported).toBeGreaterThan(10);
    },
  );
});

describe("mayHaveUserinfoInJson", () => {
  const urlPieces = ["://", "u", ":", "p@ss", "@", "/", "?", "\n", '"', "\\", "\ud800", "\u0001", "h", ".", " ", "%40"];

  it("is true wherever passwordRangeInUrl finds userinfo in the decoded string", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...urlPieces), { maxLength: 24 }), (parts) => {
        const text = parts.join("");
        for (let at = text.indexOf("://"); at !== -1; at = text.indexOf("://", at + 1)) {
          // The JSON text of the prefix is the prefix's escapes: per character, so it ends where `://` starts.
          const jsonAt = JSON.stringify(text.slice(0, at)).length - 1;
          const json = JSON.stringify(text);
          expect(json.startsWith("://", jsonAt)).toBe(true);
          if (passwordRangeInUrl(text, at) !== undefined) expect(mayHaveUserinfoInJson(json, jsonAt), text).toBe(true);
        }
      }),
      { numRuns: 3_000 },
    );
  });

  it("is false for a URL without an @ before its host ends, escapes included", () => {
    for (const text of ["https://example.com/a@b", "https://example.com\nuser@x", 'see "https://x.org" or a@b'])
      expect(mayHaveUserinfoInJson(JSON.stringify(text), JSON.stringify(text).indexOf("://")), text).toBe(false);
    const lone = JSON.stringify("redis://u\ud800:pw@h");
    expect(mayHaveUserinfoInJson(lone, lone.indexOf("://"))).toBe(true);
  });
});
