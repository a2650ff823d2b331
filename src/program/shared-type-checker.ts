// The type checker sessions share when they are given none: one per process, so its checker
// process, the parsed lib and the cache of finished checks serve every session. Warming a checker
// up starts its process in the background, once per checker; it never throws, and a failed
// warm-up is silent. The warm-up programs are what models write: a cursor loop, a fan-out, a fold.

import { RUNTIME_DECLARATIONS } from "../schema/generate-declarations.js";
import { TypeChecker } from "./type-checker.js";

let typeChecker: TypeChecker | undefined;

/** One checker per process: its checker process keeps the parsed lib warm for every session. */
export function sharedTypeChecker(): TypeChecker {
  return (typeChecker ??= new TypeChecker());
}

const warmedUp = new WeakSet<TypeChecker>();

// Two stand-in tools as local functions, typed as the declaration generator types tools, so the
// programs check calls, results and their types against any session's declarations (inside the
// program's function their names shadow the catalog's, never clash with it).
const STAND_IN_TOOLS = `interface WarmItem { id: string; status: "open" | "closed"; amount: number; tags: string[] }
interface WarmPage { items: WarmItem[]; nextCursor: string | null }
async function list(input: { cursor?: string; pageSize?: number }): Promise<WarmPage> {
  return { items: [], nextCursor: input.cursor === undefined ? "1" : null };
}
async function get(input: { id: string }): Promise<{ id: string; total: number; owner: { name: string } | null }> {
  return { id: input.id, total: 0, owner: null };
}
`;

/** The varied programs a warm-up round checks: loops, fan-outs, folds, generics, narrowing, type errors. */
const VARIED_PROGRAMS: readonly string[] = [
  "return 0;",
  `${STAND_IN_TOOLS}const ids: string[] = [];
let cursor: string | null = null;
do {
  const page = await list({ pageSize: 50, ...(cursor === null ? {} : { cursor }) });
  for (const item of page.items) if (item.status === "open") ids.push(item.id);
  cursor = page.nextCursor;
} while (cursor !== null);
const details = await Promise.all(ids.map((id) => get({ id })));
const byOwner = new Map<string, number>();
for (const detail of details) {
  const owner = detail.owner?.name ?? "nobody";
  byOwner.set(owner, (byOwner.get(owner) ?? 0) + detail.total);
}
return { owners: [...byOwner.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5), complete: true };`,
  `${STAND_IN_TOOLS}const page = await list({});
const total = page.items.reduce((sum, item) => sum + item.amount, 0);
const tags = [...new Set(page.items.flatMap((item) => item.tags))].join(", ");
try {
  const one = await get({ id: page.items[0]?.id ?? "none" });
  return { total, tags, first: JSON.stringify(one), keys: Object.keys(one).length };
} catch (error) {
  if (isToolCallError(error)) return { total, tags, code: error.code };
  throw error;
}`,
  `${STAND_IN_TOOLS}const failed: { id: string; error: string }[] = [];
const settled = await Promise.allSettled(["a", "b", "c"].map((id) => get({ id })));
settled.forEach((result, index) => {
  if (result.status === "rejected") failed.push({ id: String(index), error: String(result.reason) });
});
const totals = settled.map((result) => (result.status === "fulfilled" ? result.value.total : 0));
const average = totals.length === 0 ? 0 : totals.reduce((a, b) => a + b, 0) / totals.length;
console.log(\`\${failed.length} failed\`);
return { failed, average: Number(average.toFixed(2)), parts: "a-b".split("-") };`,
  `${STAND_IN_TOOLS}type Row = { id: string; amount: number };
const rows: Row[] = [];
for (let page = 0; page < 3; page++) {
  const { items } = await list({ cursor: String(page) });
  rows.push(...items.map(({ id, amount }) => ({ id, amount })));
}
const groups = rows.reduce<Record<string, Row[]>>((found, row) => {
  (found[row.amount % 2 === 0 ? "even" : "odd"] ??= []).push(row);
  return found;
}, {});
return Object.entries(groups).map(([key, group]) => ({ key, count: group.length })).sort((a, b) => a.key.localeCompare(b.key));`,
  `${STAND_IN_TOOLS}const page = await list({ pageSize: "ten" });
const first = page.items[0];
const label: string = first.amount;
const detail = await get({ identifier: first?.id });
return { label, owner: detail.owner.name, missing: detail.totl };`,
  `${STAND_IN_TOOLS}async function fetchAll(ids: readonly string[], limit = 4) {
  const results: Array<{ id: string; total: number } | null> = [];
  for (let start = 0; start < ids.length; start += limit) {
    const answers = await Promise.all(ids.slice(start, start + limit).map(async (id) => {
      try {
        const { total } = await get({ id });
        return { id, total };
      } catch {
        return null;
      }
    }));
    results.push(...answers);
  }
  return results;
}
const found = (await fetchAll(["a", "b"])).filter((entry): entry is { id: string; total: number } => entry !== null);
return { count: found.length, names: found.map((entry) => entry.id.toUpperCase()) };`,
  `${STAND_IN_TOOLS}const seen = new Set<string>();
const counts: { [tag: string]: number } = {};
let cursor: string | null = null;
while ((await tools.$budget()).callsLeft > 0) {
  const page = await list(cursor ? { cursor } : {});
  for (const { id, tags, status } of page.items) {
    if (seen.has(id) || status === "closed") continue;
    seen.add(id);
    for (const tag of tags) counts[tag] = (counts[tag] ?? 0) + 1;
  }
  if (!page.nextCursor) break;
  cursor = page.nextCursor;
}
const ranked = Object.keys(counts).sort((a, b) => (counts[b] ?? 0) - (counts[a] ?? 0));
return { unique: seen.size, ranked, at: new Date(0).toISOString(), copy: JSON.parse(JSON.stringify(counts)) as unknown };`,
];

/** Rounds of VARIED_PROGRAMS a warm-up checks (see WARM_UP_PROGRAMS). */
const WARM_UP_ROUNDS = 4;

/**
 * Programs a warm-up checks, one after the other, each with its references read: V8 optimises the
 * compiler's code as it runs. VARIED_PROGRAMS once optimises a new ts.Program's path; the resident
 * checker (resident-checker.ts), which answers a clean new program, gets fast only after about 20
 * checks, so the rounds after the first repeat them, each copy a text the cache has never seen.
 * Each is small, so a real check that arrives meanwhile waits little behind it.
 */
export const WARM_UP_PROGRAMS: readonly string[] = Array.from({ length: WARM_UP_ROUNDS }, (_, round) =>
  VARIED_PROGRAMS.map((program) => (round === 0 ? program : `${program}\n// warm-up round ${round + 1}`)),
).flat();

/**
 * Most characters of a session's own declarations a warm-up checks against; larger ones warm with
 * the runtime's. Small: the shared checker checks them with every warm-up program (real checks use
 * the tools each program uses), so a large text would make each warm-up program, and a real check
 * waiting behind one, slow.
 */
const MAX_WARM_UP_DECLARATION_CHARS = 16 * 1024;

/**
 * Starts a checker's process in the background and warms it (TypeScript loaded, the ES2022 lib
 * parsed, WARM_UP_PROGRAMS checked and their references read), once per checker, so the first
 * program of a session does not pay that start-up. The programs are checked against
 * `declarations()` (the session's, read when the warm-up starts) when it gives at most 16 KB, so
 * the first real check also finds them parsed and checked; else (or undefined) the runtime's alone.
 * Nothing starts if `cancelled()` is true by then. Keeps no process alive; a real check arriving
 * meanwhile waits for the one warm-up program in the process at most (the rest give way).
 */
export function warmUp(
  checker: TypeChecker,
  declarations: () => string | undefined = () => undefined,
  cancelled: () => boolean = () => false,
): void {
  if (warmedUp.has(checker)) return;
  warmedUp.add(checker);
  // Forking takes a few ms of this thread: not inside the session's constructor.
  setImmediate(() => {
    if (cancelled()) {
      warmedUp.delete(checker);
      return;
    }
    const own = declarations();
    const text = own !== undefined && own.length <= MAX_WARM_UP_DECLARATION_CHARS ? own : RUNTIME_DECLARATIONS;
    void checker.warmUp(text, WARM_UP_PROGRAMS);
  });
}
