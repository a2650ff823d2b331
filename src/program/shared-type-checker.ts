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

// Two tools in the shape the declaration generator gives them, so a warm-up checks calls, results and their types.
const WARM_UP_DECLARATIONS = `${RUNTIME_DECLARATIONS}
interface WarmListInput { cursor?: string; pageSize?: number }
interface WarmListOutput { items: { id: string; status: "open" | "closed"; amount: number; tags: string[] }[]; nextCursor: string | null }
declare const tools: ToolsRuntime & {
  warm: { list(input: WarmListInput): Promise<WarmListOutput>; get(input: { id: string }): Promise<{ id: string; total: number; owner: { name: string } | null }> };
};
`;

/**
 * Programs a warm-up checks, one after the other: the compiler's code is optimised by running,
 * so a few varied checks leave a real first check a fraction of a cold one's cost.
 */
const WARM_UP_PROGRAMS: readonly string[] = [
  "return 0;",
  `const ids: string[] = [];
let cursor: string | null = null;
do {
  const page = await tools.warm.list({ pageSize: 50, ...(cursor === null ? {} : { cursor }) });
  for (const item of page.items) if (item.status === "open") ids.push(item.id);
  cursor = page.nextCursor;
} while (cursor !== null);
const details = await Promise.all(ids.map((id) => tools.warm.get({ id })));
const failed: { id: string; error: string }[] = [];
const byOwner = new Map<string, number>();
for (const detail of details) {
  const owner = detail.owner?.name ?? "nobody";
  byOwner.set(owner, (byOwner.get(owner) ?? 0) + detail.total);
}
const settled = await Promise.allSettled(ids.slice(0, 3).map((id) => tools.warm.get({ id })));
settled.forEach((result, index) => {
  if (result.status === "rejected") failed.push({ id: ids[index] ?? "", error: String(result.reason) });
});
console.log(\`\${details.length} details\`);
return { owners: [...byOwner.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5), failed, complete: true };`,
  `const page = await tools.warm.list({});
const total = page.items.reduce((sum, item) => sum + item.amount, 0);
const tags = [...new Set(page.items.flatMap((item) => item.tags))].join(", ");
try {
  const one = await tools.warm.get({ id: page.items[0]?.id ?? "none" });
  return { total, tags, first: JSON.stringify(one), keys: Object.keys(one).length };
} catch (error) {
  if (isToolCallError(error)) return { total, tags, code: error.code };
  throw error;
}`,
];

/**
 * Starts a checker's process in the background and warms it (TypeScript loaded, the ES2022 lib and
 * the runtime declarations parsed, a few programs checked), once per checker, so the first program
 * of a session does not pay that start-up. Keeps no process alive; a check arriving meanwhile waits.
 */
export function warmUp(checker: TypeChecker): void {
  if (warmedUp.has(checker)) return;
  warmedUp.add(checker);
  // Forking takes a few ms of this thread: not inside the session's constructor.
  setImmediate(() => void checker.warmUp(WARM_UP_DECLARATIONS, WARM_UP_PROGRAMS));
}
