// What a benchmark task is: real tools over seeded data, the question, the true answer, the
// checker that grades an answer's text, and the scripted policy a competent model would
// follow in each mode. Policies decide only from what the model was shown (tool-result text,
// rendered program output), so a lost page or a wrong program shows up as a wrong answer
// instead of being papered over by the harness; live runs are graded by the same checker.

import type { ToolDefinition } from "../../src/registry/define-tool.js";

/** One call a direct-mode policy wants made; `tool` is the catalog name (`orders.search`). */
export interface CallRequest {
  readonly tool: string;
  readonly input: Record<string, unknown>;
}

/** A tool result as the model read it. */
export interface SeenResult {
  readonly ok: boolean;
  /** The result text parsed as JSON (ok results); `undefined` for errors. */
  readonly value: any;
  /** The error code the result text names, for errors. */
  readonly code: string | undefined;
  /** The exact text that entered the context. */
  readonly text: string;
}

/**
 * The model's side of direct calling. `call` takes calls that do not depend on each other;
 * the harness sends them in one turn (grouped mode) or one turn each, in order (direct
 * mode), and resolves with one result per call in the same order.
 */
export interface DirectSession {
  call(calls: readonly CallRequest[]): Promise<SeenResult[]>;
}

/**
 * The same service behind a narrower API, as a well-designed one would offer: field
 * selection and server-side filters. Only the lean direct mode uses it.
 */
export interface LeanApi<Answer> {
  /** Replaces the task's tools of the same names. */
  readonly tools: readonly ToolDefinition[];
  /** What the narrower API offers, in a few words (for the report). */
  readonly note: string;
  /** The direct policy against the lean tools. */
  solveDirect(session: DirectSession): Promise<Answer>;
}

/** A fresh instance of a task's world: its own services, so state never leaks between runs. */
export interface TaskWorld<Answer> {
  readonly tools: readonly ToolDefinition[];
  /** The narrower API of the same data; absent when no narrower API would help. */
  readonly lean?: LeanApi<Answer>;
  /** The correct answer, computed from the generated data. */
  readonly truth: Answer;
  /** The direct-mode policy: the calls a competent model makes, and the answer it then gives. */
  solveDirect(session: DirectSession): Promise<Answer>;
  /** The program a competent model writes (body of an async function). */
  readonly program: string;
  /** A realistic slip in `program` the type check catches: the first `find` becomes `replace`. */
  readonly programMistake: { readonly find: string; readonly replace: string };
  /** The answer the model gives after reading the program's output (parsed from the rendered result). */
  answerFromOutput(output: unknown): Answer;
  /** What the model searches for in deferred mode, one query per tool it needs. */
  readonly searchQueries: readonly string[];
  /** Tools the program calls; deferred mode must find each before writing it. */
  readonly requiredTools: readonly string[];
  /** The final answer as the model would type it. */
  render(answer: Answer): string;
  /**
   * Grades an answer's text against the truth: what is wrong or missing, empty when it is
   * right. The same checker grades scripted and live answers, so it reads prose, not JSON.
   */
  checkAnswer(text: string): string[];
  /** Problems with side effects the answer cannot show (e.g. a page not written verbatim). */
  verifyWorld?(): string[];
}

export interface BenchTask<Answer = unknown> {
  readonly id: string;
  readonly title: string;
  readonly question: string;
  /** True for the controls, where programmatic calling should not win. */
  readonly control: boolean;
  /** One line on what the task measures. */
  readonly note: string;
  createWorld(): TaskWorld<Answer>;
}

/** Declares a task with its answer type checked, stored without it. */
export function defineTask<Answer>(task: BenchTask<Answer>): BenchTask {
  return task as BenchTask;
}

// ---------------------------------------------------------------------------------------
// Helpers shared by the tasks

/** The seeded PRNG of the orders demo (mulberry32): the same seed always yields the same data. */
export { createRandom } from "../../examples/orders/orders-service.js";

/** An integer in [min, max], inclusive. */
export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** One element of a non-empty list. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("pick() from an empty list");
  return item;
}

/** A lowercase base-36 id of `length` characters. */
export function randomId(random: () => number, length: number): string {
  let id = "";
  while (id.length < length) id += Math.floor(random() * 36).toString(36);
  return id;
}

/**
 * Calls with a retry policy, as a model would: each round sends every still-failing call
 * again (independent, so one turn in grouped mode) while the error is `retryable`, up to
 * `maxAttempts`. Resolves with the last result of each call, in input order.
 */
export async function callWithRetries(
  session: DirectSession,
  calls: readonly CallRequest[],
  retryable: (result: SeenResult) => boolean,
  maxAttempts: number,
): Promise<SeenResult[]> {
  const results: (SeenResult | undefined)[] = calls.map(() => undefined);
  let pending = calls.map((_, index) => index);
  for (let attempt = 1; pending.length > 0 && attempt <= maxAttempts; attempt++) {
    const round = await session.call(pending.map((index) => calls[index]!));
    const again: number[] = [];
    round.forEach((result, position) => {
      const index = pending[position]!;
      results[index] = result;
      if (!result.ok && retryable(result)) again.push(index);
    });
    pending = again;
  }
  return results.map((result) => {
    if (result === undefined) throw new Error("callWithRetries: a call was never made");
    return result;
  });
}

/** The input schema of a tool that takes one required string, `name`, and nothing else. */
export function singleStringInput(name: string, description: string) {
  return {
    type: "object",
    properties: { [name]: { type: "string", description } },
    required: [name],
    additionalProperties: false,
  };
}

/** JSON with object keys sorted, so two answers compare by content. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : inner,
  );
}

/** Formats minor units as a decimal amount: 123456 -> "1,234.56". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const absolute = Math.abs(cents);
  return `${sign}${Math.floor(absolute / 100).toLocaleString("en-US")}.${String(absolute % 100).padStart(2, "0")}`;
}

// ---------------------------------------------------------------------------------------
// Grading helpers: what an answer's text must mention

/** Whether `text` mentions the integer `value`, with or without thousands separators. */
export function mentionsNumber(text: string, value: number): boolean {
  const plain = String(value);
  const grouped = value.toLocaleString("en-US");
  return [plain, grouped].some((form) => new RegExp(`(^|[^\\d.,])${escapeRegExp(form)}(?![\\d]|[.,]\\d)`).test(text));
}

/** Whether `text` mentions an amount of `cents` minor units as a decimal, with or without separators. */
export function mentionsAmount(text: string, cents: number): boolean {
  const grouped = formatCents(cents);
  const plain = grouped.replace(/,/g, "");
  return [grouped, plain].some((form) => new RegExp(`(^|[^\\d.,])${escapeRegExp(form)}(?!\\d)`).test(text));
}

/** Whether `text` contains `phrase`, ignoring case and runs of white space. */
export function mentionsPhrase(text: string, phrase: string): boolean {
  const normalize = (value: string) => value.toLowerCase().replace(/\s+/g, " ");
  return normalize(text).includes(normalize(phrase));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
