import { describe, expect, it } from "vitest";
import { compileGlob, matchGlob } from "../../src/builtins/glob.js";
import { ToolError } from "../../src/errors.js";

describe("compileGlob", () => {
  it("matches * within one folder and ? as one character", () => {
    expect(matchGlob("*.ts", "index.ts")).toBe(true);
    expect(matchGlob("*.ts", "src/index.ts")).toBe(false);
    expect(matchGlob("src/*.ts", "src/index.ts")).toBe(true);
    expect(matchGlob("file?.txt", "file1.txt")).toBe(true);
    expect(matchGlob("file?.txt", "file10.txt")).toBe(false);
    expect(matchGlob("a?b", "a/b")).toBe(false);
  });

  it("matches ** across any number of folders, including none", () => {
    expect(matchGlob("**/*.ts", "index.ts")).toBe(true);
    expect(matchGlob("**/*.ts", "src/deep/er/index.ts")).toBe(true);
    expect(matchGlob("src/**", "src/a/b.txt")).toBe(true);
    expect(matchGlob("src/**/test/*.ts", "src/test/a.ts")).toBe(true);
    expect(matchGlob("src/**/test/*.ts", "src/x/y/test/a.ts")).toBe(true);
    expect(matchGlob("src/**/test/*.ts", "lib/test/a.ts")).toBe(false);
    expect(matchGlob("**", "anything/at/all")).toBe(true);
  });

  it("expands {a,b} alternatives, nested and across folders", () => {
    const matcher = compileGlob("{src,test}/**/*.{ts,m{d,dx}}");
    expect(matcher("src/a.ts")).toBe(true);
    expect(matcher("test/x/b.mdx")).toBe(true);
    expect(matcher("test/x/b.md")).toBe(true);
    expect(matcher("docs/a.ts")).toBe(false);
    expect(matcher("src/a.js")).toBe(false);
  });

  it("treats escaped and other characters literally", () => {
    expect(matchGlob("a\\*b", "a*b")).toBe(true);
    expect(matchGlob("a\\*b", "axb")).toBe(false);
    expect(matchGlob("[x].txt", "[x].txt")).toBe(true);
    expect(matchGlob("a.txt", "abtxt")).toBe(false);
  });

  it("refuses unbalanced braces and explosive expansions with PATTERN_INVALID", () => {
    for (const pattern of ["{a,b", "a}b", "", "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}", "trailing\\"]) {
      let error: unknown;
      try {
        compileGlob(pattern);
      } catch (thrown) {
        error = thrown;
      }
      expect(error, pattern).toBeInstanceOf(ToolError);
      expect((error as ToolError).code).toBe("PATTERN_INVALID");
    }
  });

  it("matches a pathological pattern against a long name without blowing up", () => {
    const started = Date.now();
    expect(matchGlob("*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(5000))).toBe(false);
    expect(matchGlob("**/**/**/**/**/**/x", Array.from({ length: 60 }, () => "d").join("/"))).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
