import { describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { encodedForms } from "../../src/redaction/known-secrets.js";
import { Redactor } from "../../src/redaction/redactor.js";
import { createCanaries, leakedSecrets } from "./canaries.js";

const canaries = createCanaries();

describe("Redactor: credential formats", () => {
  it.each(canaries.map((canary) => [canary.kind, canary] as const))(
    "replaces a %s and names its kind",
    (kind, canary) => {
      const redacted = new Redactor().redactText(`before ${canary.text} after`);
      expect(leakedSecrets(redacted.text, [canary])).toEqual([]);
      expect(redacted.kinds).toContain(kind);
      expect(redacted.text).toContain(`[REDACTED:${kind}]`);
      expect(redacted.text.startsWith("before ")).toBe(true);
      expect(redacted.text.endsWith(" after")).toBe(true);
    },
  );

  it("keeps what is around the secret readable: the variable, the scheme, the user and the host", () => {
    const redactor = new Redactor();
    const [github, , , , aws] = canaries;
    expect(redactor.redactText(github!.text).text).toBe("GITHUB_TOKEN=[REDACTED:github-token]");
    expect(redactor.redactText(aws!.text).text).toBe('AWS_SECRET_ACCESS_KEY="[REDACTED:aws-secret-access-key]"');
    const url = canaries.find((canary) => canary.kind === "url-password")!;
    expect(redactor.redactText(url.text).text).toBe(
      "DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/app",
    );
    const bearer = canaries.find((canary) => canary.kind === "bearer-token")!;
    expect(redactor.redactText(bearer.text).text).toBe(
      'curl -H "Authorization: Bearer [REDACTED:bearer-token]" https://api.example.net',
    );
  });

  it("finds every canary in one text, each once, in order", () => {
    const text = canaries.map((canary) => canary.text).join("\n");
    const redacted = new Redactor().redactText(text);
    expect(leakedSecrets(redacted.text, canaries)).toEqual([]);
    expect(redacted.kinds).toEqual(canaries.map((canary) => canary.kind));
  });

  it("names a token inside an Authorization header after the token, not the header", () => {
    const github = canaries[0]!.secret;
    expect(new Redactor().redactText(`Authorization: Bearer ${github}`).text).toBe(
      "Authorization: Bearer [REDACTED:github-token]",
    );
  });

  it("redacts a PEM private key cut short, as a truncated log or preview shows it", () => {
    const key = canaries.find((canary) => canary.kind === "private-key")!.secret;
    const cut = key.slice(0, 120);
    const redacted = new Redactor().redactText(`log: ${cut}`);
    expect(redacted.text).toBe("log: [REDACTED:private-key]");
    const escaped = JSON.stringify({ private_key: key });
    expect(
      leakedSecrets(new Redactor().redactText(escaped).text, [
        { kind: "private-key", secret: key, text: "", standalone: true },
      ]),
    ).toEqual([]);
  });

  it("leaves documentation placeholders alone", () => {
    const redactor = new Redactor();
    for (const text of [
      "curl -H 'Authorization: Bearer <token>' https://api.example.com",
      "headers: { Authorization: `Bearer ${token}` }",
      "Authorization: Bearer YOUR_TOKEN",
      "postgres://user:password@localhost:5432/db",
      "redis://:${REDIS_PASSWORD}@cache:6379",
      "password: string;",
      "const password = options.password ?? process.env.PASSWORD;",
      "password: z.string().min(8)",
      "DB_PASSWORD=********",
      "Use basic authentication or bearer tokens.",
      "x-api-key: process.env.ANTHROPIC_API_KEY",
      "-----BEGIN PRIVATE KEY----- blocks are refused.",
    ]) {
      expect(redactor.redactText(text), text).toEqual({ text, kinds: [] });
    }
  });

  it("is off for credential formats with credentialFormats: false, and on for the listed secrets still", () => {
    const redactor = new Redactor({ credentialFormats: false, secrets: ["listed-secret-1"] });
    const text = `${canaries[0]!.text} listed-secret-1`;
    expect(redactor.redactText(text).text).toBe(`${canaries[0]!.text} [REDACTED:secret]`);
  });
});

describe("Redactor: known secrets", () => {
  const secret = "crm-Token/42+x y";
  const redactor = new Redactor({ secrets: [{ value: secret, kind: "env:CRM_TOKEN" }], credentialFormats: false });

  it("replaces the value wherever it appears, glued to other text too", () => {
    expect(redactor.redactText(`a${secret}b ${secret}`).text).toBe(
      "a[REDACTED:env:CRM_TOKEN]b [REDACTED:env:CRM_TOKEN]",
    );
  });

  it("replaces its URL-encoded, form-encoded and JSON-escaped forms", () => {
    for (const form of [encodeURIComponent(secret), new URLSearchParams({ q: secret }).toString().slice(2)]) {
      expect(redactor.redactText(`?q=${form}&x=1`).text).toBe("?q=[REDACTED:env:CRM_TOKEN]&x=1");
    }
    const quoted = `he said "${'q"uote-secret'}"`;
    const withQuote = new Redactor({ secrets: ['q"uote-secret'], credentialFormats: false });
    expect(withQuote.redactText(JSON.stringify(quoted))).toMatchObject({ kinds: ["secret"] });
  });

  it("replaces its base64 and base64url forms at each of the three byte offsets inside a longer encoding", () => {
    for (const prefix of ["", "a", "ab", "abc:", "user:"]) {
      const encoded = Buffer.from(`${prefix}${secret}!tail`).toString("base64");
      const redacted = redactor.redactText(`Authorization: Basic ${encoded}`);
      expect(redacted.kinds, prefix).toEqual(["env:CRM_TOKEN"]);
      // What is left of the encoding is at most one character on each side of the value.
      const left = redacted.text.replace("Authorization: Basic ", "").replace("[REDACTED:env:CRM_TOKEN]", "");
      const expectedChars = Buffer.from(`${prefix}!tail`).toString("base64").length + 4;
      expect(left.length).toBeLessThanOrEqual(expectedChars);
      const url = Buffer.from(`${prefix}${secret}`).toString("base64url");
      expect(redactor.redactText(url).kinds, `base64url ${prefix}`).toEqual(["env:CRM_TOKEN"]);
    }
  });

  it("replaces its URL-encoded forms with lower-case hex escapes too (%2f as well as %2F)", () => {
    const lower = encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    expect(lower).toContain("%2f");
    expect(redactor.redactText(`GET /crm?token=${lower}&page=2`).text).toBe(
      "GET /crm?token=[REDACTED:env:CRM_TOKEN]&page=2",
    );
    const form = new URLSearchParams({ q: secret })
      .toString()
      .slice(2)
      .replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    expect(redactor.redactText(`q=${form}`).kinds).toEqual(["env:CRM_TOKEN"]);
  });

  it("replaces its base64 form in text wrapped at 76 columns (the base64 command's default), 64 and CRLF", () => {
    for (let offset = 0; offset < 80; offset += 7) {
      const encoded = Buffer.from(`${"p".repeat(offset)}${secret}${"q".repeat(90)}`).toString("base64");
      for (const [width, newline] of [
        [76, "\n"],
        [64, "\n"],
        [76, "\r\n"],
      ] as const) {
        const wrapped = encoded.match(new RegExp(`.{1,${width}}`, "g"))!.join(newline);
        const redacted = redactor.redactText(`$ base64 creds.txt\n${wrapped}\n$ `);
        expect(redacted.kinds, `offset ${offset}, width ${width}`).toEqual(["env:CRM_TOKEN"]);
        // The lines around the secret stay: only the secret's characters (and the breaks inside it) go.
        if (offset >= 7) expect(redacted.text.startsWith(`$ base64 creds.txt\n${wrapped.slice(0, 8)}`)).toBe(true);
        expect(redactor.mayHaveSecrets(wrapped)).toBe(true);
        const json = redactor.redactJson(JSON.stringify({ stdout: wrapped }));
        expect(json?.redactions, `JSON, offset ${offset}, width ${width}`).toEqual([
          { kind: "env:CRM_TOKEN", path: "$.stdout" },
        ]);
      }
    }
  });

  it("leaves wrapped base64 that holds no known secret as it is", () => {
    const encoded = Buffer.from("nothing secret here ".repeat(20)).toString("base64");
    const wrapped = encoded.match(/.{1,76}/g)!.join("\n");
    expect(redactor.redactText(wrapped)).toEqual({ text: wrapped, kinds: [] });
    expect(redactor.redactJson(JSON.stringify({ stdout: wrapped }))).toBeUndefined();
  });

  it("lists the value's forms once each", () => {
    const forms = encodedForms("abcdefgh");
    expect(new Set(forms).size).toBe(forms.length);
    expect(forms[0]).toBe("abcdefgh");
  });

  it("refuses a secret shorter than 4 characters and a malformed kind", () => {
    expect(() => new Redactor({ secrets: ["abc"] })).toThrow(SwitchyardError);
    expect(() => new Redactor({ secrets: [{ value: "abcdef", kind: "has space" }] })).toThrow(/kind/);
  });
});

describe("Redactor: patterns", () => {
  it("replaces matches of a user pattern, or only its `secret` group", () => {
    const redactor = new Redactor({
      credentialFormats: false,
      patterns: [/\bACME-[0-9]{6}\b/, { pattern: "session=(?<secret>[a-f0-9]{16})", kind: "acme-session" }],
    });
    expect(redactor.redactText("id ACME-123456; session=0123456789abcdef.").text).toBe(
      "id [REDACTED:pattern]; session=[REDACTED:acme-session].",
    );
  });

  it("refuses a pattern that does not compile or matches the empty string", () => {
    expect(() => new Redactor({ patterns: ["(unclosed"] })).toThrow(/redaction.patterns\[0\].*not a valid/);
    expect(() => new Redactor({ patterns: ["x", "a*"] })).toThrow(/redaction.patterns\[1\].*empty string/);
  });
});

describe("Redactor: JSON values", () => {
  const github = canaries[0]!.secret;
  const redactor = new Redactor();

  it("redacts strings at any depth and object keys, with the path of each, and copies only what changed", () => {
    const untouched = { list: [1, 2, { a: "b" }] };
    const value = { untouched, rows: [{ id: 1, token: github }], [github]: true };
    const redacted = redactor.redactValue(value);
    expect(redacted.value).toEqual({
      untouched,
      rows: [{ id: 1, token: "[REDACTED:github-token]" }],
      "[REDACTED:github-token]": true,
    });
    expect(redacted.value.untouched).toBe(untouched);
    expect(redacted.redactions).toEqual([
      { kind: "github-token", path: "$.rows[0].token" },
      { kind: "github-token", path: '$["[REDACTED:github-token]"]' },
    ]);
    expect(JSON.stringify(redacted.redactions)).not.toContain(github);
  });

  it("returns the very value when nothing is found", () => {
    const value = { a: ["x", { b: "y" }] };
    expect(redactor.redactValue(value).value).toBe(value);
    expect(redactor.redactJson(JSON.stringify(value))).toBeUndefined();
  });

  it("keeps a `__proto__` key a key, and two keys that now read alike both", () => {
    const json = `{"__proto__":{"x":"${github}"},"a ${github}":1,"a ${canaries[1]!.secret}":2}`;
    const redacted = redactor.redactJson(json)!;
    const value = redacted.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "a [REDACTED:github-token]", "a [REDACTED:github-token]#2"]);
    expect(value["a [REDACTED:github-token]#2"]).toBe(2);
    expect(redacted.json).not.toContain(github);
  });

  it("redacts a value nested too deeply to walk as text", () => {
    const depth = 200_000;
    const json = `${"[".repeat(depth)}"${github}"${"]".repeat(depth)}`;
    const redacted = redactor.redactJson(json)!;
    expect(redacted.json).not.toContain(github);
    expect(redacted.redactions).toEqual([{ kind: "github-token", path: "$" }]);
  });
});

describe("Redactor: hostile texts", () => {
  it("stays linear on texts made of keywords (a program's output can be anything)", () => {
    const redactor = new Redactor();
    const texts = [
      "-eyJ".repeat(50_000),
      `${"-eyJ".repeat(50_000)}.eyJabcdefghij.sig`,
      "://".repeat(60_000),
      `a://${"x".repeat(200_000)}@`,
      "Bearer ".repeat(30_000),
      "-----BEGIN PRIVATE KEY-----".repeat(8_000),
      "ghp_".repeat(50_000),
      "password=password=".repeat(12_000),
      "T3BlbkFJ".repeat(25_000),
    ];
    for (const text of texts) {
      const started = performance.now();
      redactor.redactText(text);
      // Generous for a loaded CI machine: a quadratic scan of 200 KB takes minutes, not this.
      expect(performance.now() - started, text.slice(0, 20)).toBeLessThan(5_000);
    }
  });
});
