// A corpus of ordinary tool results without secrets, for the false-positive test and the
// redaction bench: code and READMEs from the installed packages (fixed by package-lock.json),
// npm's own documentation, real package metadata and lock file JSON, and generated API answers
// and logs full of the shapes that look random (hashes, ids, digests, trace ids, base64).
// Deterministic for a given install; about 1.2 MB in four categories.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export type CorpusCategory = "code" | "prose" | "json" | "logs";

export interface CorpusDocument {
  /** Where it came from: a path under the repository or npm's folder, or `generated:<what>`. */
  readonly name: string;
  readonly category: CorpusCategory;
  readonly text: string;
}

/** The checkout: the nearest folder up from this file with a lock file (also from a compiled copy in dist-bench/). */
const REPOSITORY = ((): string => {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, "package-lock.json")) && dirname(folder) !== folder) folder = dirname(folder);
  return folder;
})();
const NPM_DOCS = "/usr/lib/node_modules/npm/docs/content";
/** Characters per category; four categories make about 1.2 MB. */
const DEFAULT_CHARS_PER_CATEGORY = 300_000;

/** Builds the corpus; see the module comment. */
export function buildRedactionCorpus(charsPerCategory = DEFAULT_CHARS_PER_CATEGORY): CorpusDocument[] {
  const modules = join(REPOSITORY, "node_modules");
  const code = takeFiles(
    "code",
    [
      "typescript/lib/lib.es5.d.ts",
      "commander/lib",
      "@modelcontextprotocol/sdk/dist/esm/client",
      "@modelcontextprotocol/sdk/dist/esm/shared",
      "ajv/dist/compile",
      "openai/resources",
      "@anthropic-ai/sdk/resources",
    ].map((path) => join(modules, path)),
    /\.(?:js|mjs|ts)$/,
    charsPerCategory,
  );
  const proseRoots = existsSync(NPM_DOCS) ? [NPM_DOCS] : [];
  const prose = takeFiles("prose", [...proseRoots, modules], /(?:^|\/)(?:README|[a-z-]+)\.md$/i, charsPerCategory);
  const json = [
    ...takeFiles("json", [join(REPOSITORY, "package-lock.json")], /\.json$/, charsPerCategory / 3),
    ...takeFiles("json", [modules], /(?:^|\/)package\.json$/, charsPerCategory / 3),
    ...generatedApiAnswers(charsPerCategory / 3),
  ];
  return [...code, ...prose, ...json, ...generatedLogs(charsPerCategory)];
}

/** Files under `roots` (sorted, depth-first) whose path matches, until `budget` characters. */
function takeFiles(
  category: CorpusCategory,
  roots: readonly string[],
  include: RegExp,
  budget: number,
): CorpusDocument[] {
  const documents: CorpusDocument[] = [];
  let total = 0;
  const visit = (path: string): void => {
    if (total >= budget) return;
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path);
    } catch {
      return;
    }
    if (stats.isDirectory()) {
      if (path.endsWith(".bin") || path.endsWith(".cache")) return;
      for (const name of readdirSync(path).sort()) visit(join(path, name));
      return;
    }
    if (!include.test(path) || path.endsWith(".map") || path.includes(".min.") || stats.size > 250_000) return;
    const text = readFileSync(path, "utf8");
    documents.push({ category, name: nameOf(path), text });
    total += text.length;
  };
  for (const root of roots) visit(root);
  return documents;
}

function nameOf(path: string): string {
  return path.startsWith(REPOSITORY) ? relative(REPOSITORY, path) : path;
}

/** mulberry32: a small seeded generator, so the generated parts are the same on every run. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(seed: number) {
  const random = randomSource(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chars = (count: number, alphabet: string): string =>
    Array.from({ length: count }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
  const hex = (count: number): string => chars(count, "0123456789abcdef");
  const base62 = (count: number): string =>
    chars(count, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
  const uuid = (): string => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
  const integer = (max: number): number => Math.floor(random() * max);
  const time = (index: number): string => new Date(Date.UTC(2026, 10, 3, 8, 0, 0) + index * 1_731).toISOString();
  return { random, pick, chars, hex, base62, uuid, integer, time };
}

const WORDS = [
  "fix",
  "cache",
  "retry",
  "timeout",
  "parser",
  "release",
  "docs",
  "flaky",
  "test",
  "upgrade",
  "memory",
  "leak",
  "crash",
  "invoice",
  "refund",
  "customer",
  "export",
  "page",
  "cursor",
  "limit",
];
const USERS = ["octocat", "mona", "hubot", "a-lopez", "k.nakamura", "dev-bot", "jsmith", "r2d2"];

/** JSON answers shaped like GitHub, Stripe and Slack API responses, with their ids, shas and node ids. */
function generatedApiAnswers(budget: number): CorpusDocument[] {
  const { pick, hex, base62, uuid, integer, time, chars } = generator(22);
  const documents: CorpusDocument[] = [];
  let total = 0;
  for (let page = 1; total < budget; page++) {
    const issues = Array.from({ length: 20 }, (_, index) => {
      const number = page * 100 + index;
      const user = pick(USERS);
      return {
        url: `https://api.github.com/repos/acme/widgets/issues/${number}`,
        html_url: `https://github.com/acme/widgets/issues/${number}`,
        id: 2_000_000_000 + integer(99_999_999),
        node_id: `I_kwDO${base62(16)}`,
        number,
        title: `${pick(WORDS)} ${pick(WORDS)} when ${pick(WORDS)} ${pick(WORDS)}`,
        user: {
          login: user,
          id: integer(9_999_999),
          node_id: `MDQ6VXNlcj${base62(8)}`,
          avatar_url: `https://avatars.githubusercontent.com/u/${integer(9_999_999)}?v=4`,
          gravatar_id: "",
        },
        labels: [{ id: integer(9_999_999), node_id: `LA_kwDO${base62(18)}`, name: pick(WORDS), color: hex(6) }],
        state: pick(["open", "closed"]),
        comments: integer(40),
        created_at: time(number),
        head: { sha: hex(40), ref: `${pick(USERS)}/${pick(WORDS)}-${pick(WORDS)}` },
        merge_commit_sha: hex(40),
        body: `Steps: run \`npm test\` after ${pick(WORDS)}; see ${hex(7)} and #${integer(9999)}.`,
      };
    });
    const charges = Array.from({ length: 10 }, () => ({
      id: `ch_3${base62(23)}`,
      object: "charge",
      amount: integer(100_000),
      currency: "usd",
      customer: `cus_${base62(14)}`,
      payment_intent: `pi_3${base62(23)}`,
      payment_method: `pm_1${base62(23)}`,
      balance_transaction: `txn_3${base62(23)}`,
      receipt_url: `https://pay.stripe.com/receipts/payment/${base62(60)}`,
      metadata: { order_id: uuid() },
      created: 1_790_000_000 + integer(9_999_999),
    }));
    const messages = Array.from({ length: 10 }, () => ({
      type: "message",
      user: `U0${chars(8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`,
      text: `deploy ${hex(7)} to ${pick(["staging", "production"])} :rocket:`,
      ts: `17${integer(99_999_999)}.${integer(999_999)}`,
      client_msg_id: uuid(),
      team: `T0${chars(8, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`,
    }));
    for (const [name, value] of [
      ["github-issues", issues],
      ["stripe-charges", { object: "list", data: charges, has_more: true }],
      ["slack-history", { ok: true, messages, has_more: false, pin_count: 0 }],
    ] as const) {
      const text = JSON.stringify(value, null, 2);
      documents.push({ category: "json", name: `generated:${name}-page-${page}`, text });
      total += text.length;
    }
  }
  return documents;
}

/** Access logs, application logs, git log and container output with request ids, digests and trace ids. */
function generatedLogs(budget: number): CorpusDocument[] {
  const { pick, hex, uuid, integer, time, base62 } = generator(7);
  const lines: string[] = [];
  let total = 0;
  for (let index = 0; total < budget; index++) {
    const line = pick([
      () =>
        `10.${integer(255)}.${integer(255)}.${integer(255)} - - [${time(index)}] "GET /api/v1/orders?cursor=${base62(24)}&limit=50 HTTP/1.1" 200 ${integer(99_999)} "-" "node-fetch/1.0"`,
      () =>
        `${time(index)} INFO request_id=${uuid()} method=POST path=/v1/refunds status=201 duration_ms=${integer(900)}`,
      () =>
        `${time(index)} WARN traceparent=00-${hex(32)}-${hex(16)}-01 retrying payment lookup for order ${integer(99_999)} (attempt ${integer(4)})`,
      () =>
        `commit ${hex(40)}\nAuthor: ${pick(USERS)} <${pick(USERS)}@users.noreply.github.com>\nDate:   ${time(index)}`,
      () => `#${integer(20)} [build ${integer(9)}/9] FROM docker.io/library/node:20@sha256:${hex(64)}`,
      () =>
        `npm http fetch GET 200 https://registry.npmjs.org/${pick(WORDS)}/-/${pick(WORDS)}-${integer(9)}.${integer(20)}.${integer(9)}.tgz ${integer(900)}ms (cache miss)`,
      () => `integrity sha512-${base62(86)}==`,
      () =>
        `${time(index)} ERROR ${pick(WORDS)} failed: ECONNRESET after ${integer(30_000)} ms (session ${hex(24)}, span ${hex(16)})`,
    ])();
    lines.push(line);
    total += line.length + 1;
  }
  const text = lines.join("\n");
  const documents: CorpusDocument[] = [];
  for (let start = 0, part = 1; start < text.length; start += 64_000, part++)
    documents.push({ category: "logs", name: `generated:logs-part-${part}`, text: text.slice(start, start + 64_000) });
  return documents;
}
