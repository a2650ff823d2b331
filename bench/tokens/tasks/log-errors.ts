// Log search: 2,000 raw log lines of one service over 8 pages of 250. Which distinct error
// signatures occurred, and how often? A signature is the error message with its numbers and
// ids blanked. Pages are addressed by number, so all but the first can be fetched at once.

import { ToolError } from "../../../src/errors.js";
import { defineTool } from "../../../src/registry/define-tool.js";
import {
  createRandom,
  defineTask,
  mentionsNumber,
  mentionsPhrase,
  pick,
  randomId,
  randomInt,
  type DirectSession,
} from "../task.js";

const SERVICE = "checkout-api";
const DAY = "2026-10-14";
const LINE_COUNT = 2000;
const PAGE_SIZE = 250;

const INFO_TEMPLATES: readonly ((random: () => number) => string)[] = [
  (random) => `INFO  GET /v2/cart/${randomId(random, 10)} 200 in ${randomInt(random, 3, 180)}ms`,
  (random) => `INFO  POST /v2/checkout 201 in ${randomInt(random, 40, 900)}ms order=ord_${randomId(random, 10)}`,
  (random) => `DEBUG cache hit ratio ${randomInt(random, 70, 99)}% over ${randomInt(random, 1000, 9000)} lookups`,
  (random) =>
    `INFO  payment authorized pay_${randomId(random, 12)} amount=${randomInt(random, 500, 90000)} currency=EUR`,
  (random) => `WARN  slow query cart_items took ${randomInt(random, 200, 1500)}ms (threshold 200ms)`,
];

/** Error templates; the blanked form (<n>, <id>) is the signature the answer counts. */
const ERROR_TEMPLATES: readonly {
  readonly signature: string;
  readonly weight: number;
  readonly make: (random: () => number) => string;
}[] = [
  {
    signature: "timeout after <n>ms calling payments-gateway",
    weight: 9,
    make: (random) => `timeout after ${randomInt(random, 3000, 3100)}ms calling payments-gateway`,
  },
  {
    signature: "inventory reservation failed for sku <id>: insufficient stock",
    weight: 6,
    make: (random) => `inventory reservation failed for sku ${idWithDigit(random, 8)}: insufficient stock`,
  },
  {
    signature: "card declined by issuer (code <n>)",
    weight: 5,
    make: (random) => `card declined by issuer (code ${randomInt(random, 10, 99)})`,
  },
  {
    signature: "database connection pool exhausted (<n>/<n> in use)",
    weight: 3,
    make: () => "database connection pool exhausted (50/50 in use)",
  },
  {
    signature: "invalid coupon <id> for cart <id>",
    weight: 3,
    make: (random) => `invalid coupon ${idWithDigit(random, 8)} for cart ${idWithDigit(random, 10)}`,
  },
  {
    signature: "tax service returned HTTP <n>",
    weight: 2,
    make: (random) => `tax service returned HTTP ${pick(random, [500, 502, 503])}`,
  },
  {
    signature: "idempotency key <id> reused with a different payload",
    weight: 1,
    make: (random) => `idempotency key ${idWithDigit(random, 16)} reused with a different payload`,
  },
];

/** An id as the services print them: lowercase letters and digits, always holding a digit. */
function idWithDigit(random: () => number, length: number): string {
  return `${randomId(random, length - 1)}${randomInt(random, 0, 9)}`;
}

export interface LogErrorsAnswer {
  readonly linesRead: number;
  /** Sorted by count descending, then signature. */
  readonly signatures: readonly { readonly signature: string; readonly count: number }[];
}

function generate(seed: number): { lines: string[]; counts: Map<string, number> } {
  const random = createRandom(seed);
  const totalWeight = ERROR_TEMPLATES.reduce((sum, template) => sum + template.weight, 0);
  const counts = new Map<string, number>();
  const lines: string[] = [];
  let milliseconds = Date.parse(`${DAY}T06:00:00Z`);
  for (let index = 0; index < LINE_COUNT; index++) {
    milliseconds += randomInt(random, 5, 4000);
    const stamp = new Date(milliseconds).toISOString();
    const request = `req=${randomId(random, 8)}`;
    if (random() < 0.11) {
      let roll = random() * totalWeight;
      const template = ERROR_TEMPLATES.find((candidate) => (roll -= candidate.weight) < 0) ?? ERROR_TEMPLATES[0]!;
      counts.set(template.signature, (counts.get(template.signature) ?? 0) + 1);
      lines.push(`${stamp} ERROR ${SERVICE} ${request} ${template.make(random)}`);
    } else {
      lines.push(`${stamp} ${pick(random, INFO_TEMPLATES)(random).replace(/^(\w+)\s+/, `$1 ${SERVICE} ${request} `)}`);
    }
  }
  return { lines, counts };
}

/**
 * The signature of an ERROR line: the message after the request id, with ids (8+ characters
 * of lowercase letters and digits, containing a digit) as `<id>` and numbers as `<n>`.
 */
function signatureOf(line: string): string | undefined {
  const match = /^\S+ ERROR \S+ req=\S+ (.*)$/.exec(line);
  if (match === null) return undefined;
  return match[1]!.replace(/\b(?=[a-z0-9]*\d)[a-z0-9]{8,}\b/g, "<id>").replace(/\d+/g, "<n>");
}

function tally(lines: readonly string[]): LogErrorsAnswer["signatures"] {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const signature = signatureOf(line);
    if (signature !== undefined) counts.set(signature, (counts.get(signature) ?? 0) + 1);
  }
  return rankSignatures(counts);
}

/** Signature counts as the answer lists them: most frequent first, then by signature. */
function rankSignatures(counts: ReadonlyMap<string, number>): LogErrorsAnswer["signatures"] {
  return [...counts]
    .map(([signature, count]) => ({ signature, count }))
    .sort((a, b) => b.count - a.count || (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0));
}

export const logErrors = defineTask<LogErrorsAnswer>({
  id: "log-errors",
  title: "Log error signatures",
  question:
    `Go through all of ${SERVICE}'s logs for ${DAY} and list the distinct error signatures (the ERROR message with numbers ` +
    "and ids blanked out) with how many times each occurred, most frequent first.",
  control: false,
  note: "2,000 log lines over 8 pages of 250; ~11% errors, 7 signatures",
  createWorld() {
    const { lines, counts } = generate(20261014);
    const tools = [
      defineTool({
        name: "logs.readPage",
        description:
          `Read one page of a service's raw log lines for one day, oldest first (${PAGE_SIZE} lines per page). Each line is ` +
          "`<ISO timestamp> <LEVEL> <service> req=<request id> <message>`. The result says how many pages the day has.",
        inputSchema: {
          type: "object",
          properties: {
            service: { type: "string", description: 'The service, e.g. "checkout-api".' },
            day: { type: "string", description: "The day, YYYY-MM-DD (UTC)." },
            page: { type: "integer", minimum: 1, default: 1, description: "Page number, starting at 1." },
          },
          required: ["service", "day"],
          additionalProperties: false,
        },
        outputSchema: {
          type: "object",
          properties: {
            page: { type: "integer" },
            totalPages: { type: "integer" },
            lines: { type: "array", items: { type: "string" } },
          },
          required: ["page", "totalPages", "lines"],
        },
        effect: "read",
        execute: ({ service, day, page = 1 }: { service: string; day: string; page?: number }) => {
          if (service !== SERVICE || day !== DAY)
            throw new ToolError(`No logs for ${service} on ${day}.`, { code: "LOGS_NOT_FOUND" });
          const totalPages = Math.ceil(lines.length / PAGE_SIZE);
          if (page > totalPages)
            throw new ToolError(`page ${page} is past the last page (${totalPages}).`, { code: "INPUT_INVALID" });
          return { page, totalPages, lines: lines.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE) };
        },
      }),
    ];
    const truth: LogErrorsAnswer = {
      linesRead: LINE_COUNT,
      signatures: rankSignatures(counts),
    };
    const leanRead = defineTool({
      name: "logs.readPage",
      description:
        `${tools[0]!.description} Optional: level (only lines of that level, filtered before paging); the result also ` +
        "says how many lines the day has in all.",
      inputSchema: {
        type: "object",
        properties: {
          service: { type: "string", description: 'The service, e.g. "checkout-api".' },
          day: { type: "string", description: "The day, YYYY-MM-DD (UTC)." },
          page: { type: "integer", minimum: 1, default: 1, description: "Page number, starting at 1." },
          level: { type: "string", enum: ["DEBUG", "INFO", "WARN", "ERROR"], description: "Only lines of this level." },
        },
        required: ["service", "day"],
        additionalProperties: false,
      },
      effect: "read",
      execute: ({ service, day, page = 1, level }: { service: string; day: string; page?: number; level?: string }) => {
        if (service !== SERVICE || day !== DAY)
          throw new ToolError(`No logs for ${service} on ${day}.`, { code: "LOGS_NOT_FOUND" });
        const matching = level === undefined ? lines : lines.filter((line) => line.split(" ", 3)[1] === level);
        const totalPages = Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
        if (page > totalPages)
          throw new ToolError(`page ${page} is past the last page (${totalPages}).`, { code: "INPUT_INVALID" });
        return {
          page,
          totalPages,
          totalLines: lines.length,
          lines: matching.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
        };
      },
    });
    return {
      tools,
      truth,
      lean: {
        note: "a level filter before paging: only ERROR lines",
        tools: [leanRead],
        async solveDirect(session: DirectSession) {
          const input = { service: SERVICE, day: DAY, level: "ERROR" };
          const [first] = await session.call([{ tool: "logs.readPage", input: { ...input, page: 1 } }]);
          const rest = await session.call(
            Array.from({ length: (first!.value.totalPages as number) - 1 }, (_, index) => ({
              tool: "logs.readPage",
              input: { ...input, page: index + 2 },
            })),
          );
          const seen = [first!, ...rest].flatMap((page) => page.value.lines as string[]);
          return { linesRead: first!.value.totalLines as number, signatures: tally(seen) };
        },
      },
      checkAnswer(text) {
        const problems: string[] = [];
        if (!mentionsNumber(text, LINE_COUNT)) problems.push(`does not say that ${LINE_COUNT} lines were read`);
        for (const { signature, count } of truth.signatures) {
          // The longest literal part of the signature: how a reader recognises it, however the blanks are written.
          const phrase = signature
            .split(/<id>|<n>/)
            .map((part) => part.trim())
            .sort((a, b) => b.length - a.length)[0]!;
          if (!mentionsPhrase(text, phrase)) problems.push(`misses the signature "${signature}"`);
          else if (!mentionsNumber(text, count)) problems.push(`misses the count ${count} of "${signature}"`);
        }
        return problems;
      },
      async solveDirect(session: DirectSession) {
        const [first] = await session.call([{ tool: "logs.readPage", input: { service: SERVICE, day: DAY, page: 1 } }]);
        const totalPages = first!.value.totalPages as number;
        const rest = await session.call(
          Array.from({ length: totalPages - 1 }, (_, index) => ({
            tool: "logs.readPage",
            input: { service: SERVICE, day: DAY, page: index + 2 },
          })),
        );
        const seen = [first!, ...rest].flatMap((page) => page.value.lines as string[]);
        return { linesRead: seen.length, signatures: tally(seen) };
      },
      program: `const first = await tools.logs.readPage({ service: "${SERVICE}", day: "${DAY}", page: 1 });
const rest = await Promise.all(
  Array.from({ length: first.totalPages - 1 }, (_, i) => tools.logs.readPage({ service: "${SERVICE}", day: "${DAY}", page: i + 2 })),
);
const counts = new Map<string, number>();
let linesRead = 0;
for (const page of [first, ...rest]) {
  for (const line of page.lines) {
    linesRead++;
    const match = /^\\S+ ERROR \\S+ req=\\S+ (.*)$/.exec(line);
    if (!match) continue;
    const signature = match[1]!.replace(/\\b(?=[a-z0-9]*\\d)[a-z0-9]{8,}\\b/g, "<id>").replace(/\\d+/g, "<n>");
    counts.set(signature, (counts.get(signature) ?? 0) + 1);
  }
}
const signatures = [...counts]
  .map(([signature, count]) => ({ signature, count }))
  .sort((a, b) => b.count - a.count || (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0));
return { pages: first.totalPages, linesRead, signatures };`,
      programMistake: { find: "first.totalPages - 1", replace: "first.pageCount - 1" },
      answerFromOutput(output) {
        const report = output as LogErrorsAnswer;
        return {
          linesRead: report.linesRead,
          signatures: report.signatures.map(({ signature, count }) => ({ signature, count })),
        };
      },
      searchQueries: ["read a page of a service's log lines"],
      requiredTools: ["logs.readPage"],
      render(answer) {
        const lines = [`Read ${answer.linesRead} log lines of ${SERVICE} for ${DAY}. Error signatures:`];
        for (const row of answer.signatures) lines.push(`- ${row.count}x ${row.signature}`);
        return lines.join("\n");
      },
    };
  },
});
