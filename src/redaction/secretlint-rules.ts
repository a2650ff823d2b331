// The common credential formats, from secretlint's recommended rule preset
// (@secretlint/secretlint-rule-preset-recommend, MIT): its rules, their regexes and their
// placeholder filters run as published; this file only says where to run them. Run as-is over
// a whole text the preset makes one pass per regex (about 35), 4 to 5 times the cost of the
// whole redaction here (bench:redaction); here each rule runs only on a small window around
// one of its keywords, which the scanner finds in one pass for all rules.
// Why secretlint: the maintained rule set for Node (2.7 M downloads a month, placeholder filters
// per rule, a release for Node 20: 12.0.0); gitleaks' rule TOML is not published on npm.
//
// Left out: `gcp` (it parses a whole .json or .p12 file; the key inside is still found by the
// private-key rules) and `filter-comments` (a `secretlint-disable` comment in a tool's output
// must not switch redaction off).

import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";
import type { Finding, KeywordRule } from "./keyword-rule.js";
import { mayHaveUserinfoInJson, passwordRangeInUrl } from "./url-password.js";

/** What a rule needs of secretlint's context; the rest of its API is not used by scanner rules. */
interface RuleContext {
  report(descriptor: { readonly message: unknown; readonly range: readonly [number, number] }): void;
  ignore(): void;
  createTranslator(messages: unknown): (messageId: string, props?: Record<string, unknown>) => unknown;
  readonly sharedOptions: Record<string, never>;
}

interface RuleCreator {
  readonly meta: { readonly id: string };
  create(context: RuleContext, options: Record<string, unknown>): { file?(source: RuleSource): unknown };
}

interface RuleSource {
  readonly content: string;
  readonly contentType: "text";
  readonly filePath?: string;
  readonly ext?: string;
}

/** What the translator hands back instead of a message: the message id and the reported value. */
interface Report {
  readonly messageId: string;
  readonly value: string | undefined;
}

/** Where and how one preset rule runs. */
interface RuleSpec {
  /** The rule id without the `@secretlint/secretlint-rule-` prefix. */
  readonly id: string;
  /** Necessary substrings of everything the rule reports (case-sensitive). */
  readonly keywords: readonly string[];
  /** Kind per message id; `null` drops the report (not a secret). Unknown ids get `kind`. */
  readonly kinds?: Readonly<Record<string, string | null>>;
  readonly kind: string;
  /** Most characters a reported value may start before its keyword, and end after it. */
  readonly before: number;
  readonly after: number;
  readonly options?: Record<string, unknown>;
  /** Some rules pick their checks by file name (the npm rule reads `.npmrc` lines only there). */
  readonly filePath?: string;
  /** Keywords too common to open a window at each one: a cheap test of the text at the keyword. */
  readonly near?: (text: string, at: number) => boolean;
  /** The same test on JSON text, for `KeywordRule.mayReportInJson`; required with `near`. */
  readonly nearInJson?: (json: string, at: number) => boolean;
  /** For URL rules: redact the password only, leaving scheme, user and host readable. */
  readonly narrowToPassword?: boolean;
}

const PREFIX = "@secretlint/secretlint-rule-";

/** Case forms the AWS rule accepts for each word (`SECRET`, `secret`, `Secret`). */
function caseForms(word: string): string[] {
  return [word.toUpperCase(), word, word[0]!.toUpperCase() + word.slice(1)];
}

/** `secret` `_`? `access` in every case form the AWS rule accepts, less the first letter's case. */
function awsSecretKeywords(): string[] {
  const keywords = new Set<string>();
  for (const secret of caseForms("secret"))
    for (const joint of ["", "_"]) for (const access of caseForms("access")) keywords.add(secret + joint + access);
  return [...keywords];
}

/** The text after `://` up to the host has an `@` with a `:` before it: credentials may be there. */
export function hasUserinfo(text: string, at: number): boolean {
  return passwordRangeInUrl(text, at) !== undefined;
}

/** Every preset rule that runs, with its keywords and window; a test checks this list against the preset. */
export const SECRETLINT_RULE_SPECS: readonly RuleSpec[] = [
  {
    id: "aws",
    keywords: ["A3T", "AKIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ASIA", ...awsSecretKeywords()],
    // Account ids are identifiers, not credentials; access key ids are checked for (off by default in secretlint).
    kinds: { AWSAccessKeyID: "aws-access-key-id", AWSSecretAccessKey: "aws-secret-access-key", AWSAccountID: null },
    kind: "aws-secret-access-key",
    options: { enableIDScanRule: true },
    before: 16,
    after: 512,
  },
  { id: "privatekey", keywords: ["PRIVATE KEY"], kind: "private-key", before: 40, after: 10_200 },
  {
    id: "npm",
    keywords: ["npm_", "x-oauth-basic@"],
    kinds: { PackageJSON_xOauthToken: "github-token" },
    kind: "npm-token",
    filePath: "package.json",
    before: 300,
    after: 64,
  },
  { id: "npm", keywords: ["_authToken="], kind: "npm-token", filePath: ".npmrc", before: 0, after: 2_048 },
  {
    id: "basicauth",
    keywords: ["://"],
    kind: "url-password",
    near: hasUserinfo,
    nearInJson: mayHaveUserinfoInJson,
    narrowToPassword: true,
    before: 8,
    after: 800,
  },
  {
    id: "slack",
    keywords: ["xoxb-", "xoxp-", "xapp-", "xoxa-", "xoxo-", "xoxr-", "hooks.slack.com", "HOOKS.SLACK.COM"],
    kinds: { IncomingWebhook: "slack-webhook" },
    kind: "slack-token",
    before: 8,
    after: 1_024,
  },
  { id: "sendgrid", keywords: ["SG."], kind: "sendgrid-api-key", before: 0, after: 400 },
  { id: "shopify", keywords: ["shppa_", "shpca_", "shpat_", "shpss_"], kind: "shopify-token", before: 0, after: 80 },
  {
    id: "github",
    keywords: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    kind: "github-token",
    before: 0,
    after: 100,
  },
  { id: "gitlab", keywords: ["glpat-"], kind: "gitlab-token", before: 0, after: 140 },
  { id: "grafana", keywords: ["glc_", "glsa_"], kind: "grafana-token", before: 0, after: 420 },
  // The OpenAI formats carry "T3BlbkFJ" (base64 of "OpenAI") in the middle.
  { id: "openai", keywords: ["T3BlbkFJ"], kind: "openai-api-key", before: 100, after: 100 },
  { id: "anthropic", keywords: ["sk-ant-api0"], kind: "anthropic-api-key", before: 0, after: 160 },
  { id: "groq", keywords: ["gsk_"], kind: "groq-api-key", before: 0, after: 64 },
  { id: "huggingface", keywords: ["hf_"], kind: "huggingface-token", before: 0, after: 48 },
  { id: "linear", keywords: ["lin_api_"], kind: "linear-api-key", before: 0, after: 140 },
  { id: "notion", keywords: ["ntn_"], kind: "notion-token", before: 0, after: 64 },
  { id: "1password", keywords: ["ops_ey"], kind: "1password-token", before: 0, after: 1_300 },
  {
    id: "database-connection-string",
    keywords: ["://"],
    kind: "url-password",
    near: hasUserinfo,
    nearInJson: mayHaveUserinfoInJson,
    narrowToPassword: true,
    before: 16,
    after: 1_024,
  },
  { id: "hashicorp-vault", keywords: ["hvs.", "hvb.", "hvr."], kind: "vault-token", before: 0, after: 310 },
  {
    id: "vercel",
    keywords: ["vcp_", "vci_", "vca_", "vcr_", "vck_"],
    kind: "vercel-token",
    before: 0,
    after: 70,
  },
  { id: "databricks", keywords: ["dapi"], kind: "databricks-token", before: 0, after: 48 },
  { id: "docker", keywords: ["dckr_pat_"], kind: "docker-token", before: 0, after: 40 },
  { id: "figma", keywords: ["figd_"], kind: "figma-token", before: 0, after: 210 },
];

/** Preset rules deliberately not run; see the module comment. */
export const SKIPPED_SECRETLINT_RULES: readonly string[] = ["gcp", "filter-comments"];

const creators = presetRules as unknown as readonly RuleCreator[];

/** The preset's rule ids (without the package prefix), for the test that keeps SECRETLINT_RULE_SPECS complete. */
export function secretlintRuleIds(): string[] {
  return creators.map((creator) => creator.meta.id.replace(PREFIX, ""));
}

let built: readonly KeywordRule[] | undefined;

/** The keyword rules of the preset, built once per process (the rules keep no state between calls). */
export function secretlintKeywordRules(): readonly KeywordRule[] {
  return (built ??= SECRETLINT_RULE_SPECS.flatMap((spec) => {
    const creator = creators.find((candidate) => candidate.meta.id === PREFIX + spec.id);
    return creator === undefined ? [] : [windowedRule(creator, spec)];
  }));
}

/** A preset rule run on a window of text around each keyword; see the module comment. */
function windowedRule(creator: RuleCreator, spec: RuleSpec): KeywordRule {
  let reports: { report: Report; range: readonly [number, number] }[] = [];
  const context: RuleContext = {
    report: (descriptor) => {
      if (typeof descriptor.message === "object" && descriptor.message !== null)
        reports.push({ report: descriptor.message as Report, range: descriptor.range });
    },
    ignore: () => {},
    // The rules put the secret into their message; the message is never built, only its id and value kept.
    createTranslator: () => (messageId, props) => ({ messageId, value: reportedValue(props) }),
    sharedOptions: {},
  };
  const handlers = creator.create(context, spec.options ?? {});
  const file = handlers.file?.bind(handlers);
  return {
    name: `secretlint:${spec.id}`,
    keywords: spec.keywords,
    ...(spec.nearInJson === undefined ? {} : { mayReportInJson: spec.nearInJson }),
    scan(text, at, found) {
      if (file === undefined) return Number.POSITIVE_INFINITY;
      if (spec.near !== undefined && !spec.near(text, at)) return at + 1;
      const from = Math.max(0, at - spec.before);
      // The window reaches further than this keyword needs, so the keywords just after it
      // (a list of tokens) are covered by the same call.
      const to = Math.min(text.length, at + 2 * spec.after);
      const content = text.slice(from, to);
      reports = [];
      try {
        file({ content, contentType: "text", ...(spec.filePath === undefined ? {} : { filePath: spec.filePath }) });
      } catch {
        // A rule that throws finds nothing here; the other rules and detectors still run.
      }
      for (const { report, range } of reports) {
        const kind = spec.kinds?.[report.messageId] === undefined ? spec.kind : spec.kinds[report.messageId];
        if (kind === null || kind === undefined) continue;
        const located = locate(content, report.value, range);
        if (located === undefined) continue;
        const [start, end] = spec.narrowToPassword === true ? narrowToPassword(content, located) : located;
        found.push({ start: from + start, end: from + end, kind });
      }
      reports = [];
      return to === text.length ? Number.POSITIVE_INFINITY : to - spec.after + 1;
    },
  };
}

/** The first string among a report's props other than a type name: the rules pass the secret there. */
function reportedValue(props: Record<string, unknown> | undefined): string | undefined {
  if (props === undefined) return undefined;
  for (const [name, value] of Object.entries(props)) if (name !== "typeName" && typeof value === "string") return value;
  return undefined;
}

/**
 * The reported value's own range. Some rules report a range that starts at the whole match
 * but has the length of a capture group (the AWS secret key after its variable name): the
 * value itself, searched from the range's start, is the reliable position.
 */
function locate(
  content: string,
  value: string | undefined,
  range: readonly [number, number],
): readonly [number, number] | undefined {
  const [start, end] = range;
  if (value !== undefined && value !== "") {
    const at = content.indexOf(value, Math.max(0, start));
    if (at !== -1 && at <= Math.max(end, start + value.length)) return [at, at + value.length];
  }
  if (!(Number.isInteger(start) && Number.isInteger(end) && start >= 0 && end > start && end <= content.length))
    return undefined;
  return [start, end];
}

/** The password inside a reported URL, or the whole URL when it has none that can be told apart. */
function narrowToPassword(content: string, [start, end]: readonly [number, number]): readonly [number, number] {
  const scheme = content.indexOf("://", start);
  if (scheme === -1 || scheme >= end) return [start, end];
  const password = passwordRangeInUrl(content, scheme);
  return password === undefined || password.end > end ? [start, end] : [password.start, password.end];
}

export type { Finding };
