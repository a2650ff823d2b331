// Team expense budget compliance: members at five levels, a few dozen expense lines each for
// the quarter, one budget per level. Who spent more than their level's limit, counting
// approved and pending expenses but not rejected ones? Every expense line passes through
// direct mode. The same task at Anthropic's published parameters (20 members, 50-100 lines
// each) is the published workload the report shows on a line of its own.

import { ToolError } from "../../../src/errors.js";
import { defineTool } from "../../../src/registry/define-tool.js";
import { leanTool, oneOfFilter } from "../lean-api.js";
import {
  createRandom,
  defineTask,
  formatCents,
  mentionsAmount,
  mentionsNumber,
  pick,
  randomId,
  randomInt,
  singleStringInput,
  type DirectSession,
} from "../task.js";

const TEAM_ID = "team_platform";
const QUARTER = "2026-Q3";
const QUARTER_RANGE = { from: "2026-07-01", to: "2026-09-30" };
const LEVELS = ["L1", "L2", "L3", "L4", "L5"] as const;
type Level = (typeof LEVELS)[number];
const LIMITS_CENTS: Record<Level, number> = { L1: 150_000, L2: 250_000, L3: 400_000, L4: 600_000, L5: 900_000 };
const CATEGORIES = ["travel", "lodging", "meals", "software", "equipment", "training", "ground-transport"] as const;
const MERCHANTS: Record<(typeof CATEGORIES)[number], readonly string[]> = {
  travel: ["Lufthansa", "United Airlines", "Deutsche Bahn", "KLM", "Air France"],
  lodging: ["Marriott Berlin", "Hilton Amsterdam", "Motel One", "Ibis Styles", "Airbnb"],
  meals: ["Starbucks", "Pret A Manger", "Local Bistro", "Team lunch - Osteria", "Hotel restaurant"],
  software: ["JetBrains", "GitHub", "Figma", "1Password", "Notion"],
  equipment: ["Apple Store", "Dell", "Logitech", "Amazon Business", "Cyberport"],
  training: ["O'Reilly", "Coursera", "KubeCon registration", "Pluralsight", "Udemy Business"],
  "ground-transport": ["Uber", "Bolt", "FreeNow", "BVG ticket", "Sixt"],
};
const FIRST = [
  "Ada",
  "Ben",
  "Chloe",
  "Dev",
  "Elif",
  "Femi",
  "Gita",
  "Hugo",
  "Ines",
  "Jonas",
  "Kaito",
  "Lena",
  "Mateo",
  "Nora",
  "Omar",
  "Priya",
  "Quinn",
  "Rosa",
  "Sami",
  "Tara",
  "Umar",
  "Vera",
  "Wen",
  "Yusuf",
];
const LAST = [
  "Okafor",
  "Schmidt",
  "Rossi",
  "Tanaka",
  "Novak",
  "Haddad",
  "Larsen",
  "Moreau",
  "Silva",
  "Kowalski",
  "Nguyen",
  "Berg",
];

interface Member {
  readonly memberId: string;
  readonly name: string;
  readonly level: Level;
  readonly title: string;
  readonly email: string;
}

interface Expense {
  readonly expenseId: string;
  readonly date: string;
  readonly category: string;
  readonly merchant: string;
  readonly amountCents: number;
  readonly currency: "EUR";
  readonly status: "approved" | "pending" | "rejected";
  readonly description: string;
}

export interface ExpenseAnswer {
  readonly overBudget: readonly {
    readonly memberId: string;
    readonly spentCents: number;
    readonly limitCents: number;
  }[];
  readonly membersChecked: number;
}

function generate(seed: number, teamSize: number, linesPerMember: readonly [number, number]) {
  const random = createRandom(seed);
  const members: Member[] = FIRST.slice(0, teamSize).map((first, index) => {
    const level = LEVELS[index % LEVELS.length]!;
    const last = pick(random, LAST);
    return {
      memberId: `mem_${String(index + 1).padStart(3, "0")}`,
      name: `${first} ${last}`,
      level,
      title: {
        L1: "Associate Engineer",
        L2: "Software Engineer",
        L3: "Senior Engineer",
        L4: "Staff Engineer",
        L5: "Principal Engineer",
      }[level],
      email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
    };
  });
  const expenses = new Map<string, Expense[]>();
  for (const member of members) {
    const limit = LIMITS_CENTS[member.level];
    // Aim around the limit, so some land over and some under.
    const target = Math.round(limit * (0.6 + random() * 0.7));
    const count = randomInt(random, linesPerMember[0], linesPerMember[1]);
    const list: Expense[] = [];
    for (let index = 0; index < count; index++) {
      const category = pick(random, CATEGORIES);
      const amountCents = Math.max(500, Math.round((target / count) * (0.3 + random() * 1.4)));
      const roll = random();
      list.push({
        expenseId: `exp_${randomId(random, 8)}`,
        date: `2026-0${randomInt(random, 7, 9)}-${String(randomInt(random, 1, 28)).padStart(2, "0")}`,
        category,
        merchant: pick(random, MERCHANTS[category]),
        amountCents,
        currency: "EUR",
        status: roll < 0.72 ? "approved" : roll < 0.9 ? "pending" : "rejected",
        description: `${category.replace("-", " ")} for ${pick(random, ["customer visit", "team offsite", "conference", "on-call week", "project kickoff", "hiring loop"])}`,
      });
    }
    list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    expenses.set(member.memberId, list);
  }
  return { members, expenses };
}

function spentCents(list: readonly Expense[]): number {
  return list.filter((expense) => expense.status !== "rejected").reduce((sum, expense) => sum + expense.amountCents, 0);
}

const MEMBER_SCHEMA = {
  type: "object",
  properties: {
    memberId: { type: "string" },
    name: { type: "string" },
    level: { type: "string", enum: [...LEVELS], description: "Career level; budgets are set per level." },
    title: { type: "string" },
    email: { type: "string" },
  },
  required: ["memberId", "name", "level", "title", "email"],
} as const;

const EXPENSE_SCHEMA = {
  type: "object",
  properties: {
    expenseId: { type: "string" },
    date: { type: "string", description: "Date of the expense, YYYY-MM-DD." },
    category: { type: "string" },
    merchant: { type: "string" },
    amountCents: { type: "integer", description: "Amount in euro cents." },
    currency: { type: "string", enum: ["EUR"] },
    status: {
      type: "string",
      enum: ["approved", "pending", "rejected"],
      description: "Rejected expenses are not reimbursed.",
    },
    description: { type: "string" },
  },
  required: ["expenseId", "date", "category", "merchant", "amountCents", "currency", "status", "description"],
} as const;

/** The parameters of one expense-budget task. */
export interface ExpenseTaskParameters {
  readonly id: string;
  readonly title: string;
  readonly note: string;
  /** At most 24. */
  readonly teamSize: number;
  /** Expense lines per member, inclusive range. */
  readonly linesPerMember: readonly [number, number];
  readonly seed: number;
}

/** The budget-compliance task with `parameters`; see the module comment. */
export function createExpenseBudgetTask(parameters: ExpenseTaskParameters) {
  return defineTask<ExpenseAnswer>({
    id: parameters.id,
    title: parameters.title,
    question:
      `Which members of team ${TEAM_ID} are over their ${QUARTER} expense budget? Count approved and pending expenses, not ` +
      "rejected ones; the budget depends on each member's level. Give each one's spend and limit.",
    control: false,
    note: parameters.note,
    createWorld() {
      const { members, expenses } = generate(parameters.seed, parameters.teamSize, parameters.linesPerMember);
      const tools = [
        defineTool({
          name: "people.listTeamMembers",
          description:
            "List the members of a team with their member id, name, career level (L1-L5), job title and email.",
          inputSchema: singleStringInput("teamId", 'The team, e.g. "team_platform".'),
          outputSchema: {
            type: "object",
            properties: { teamId: { type: "string" }, members: { type: "array", items: MEMBER_SCHEMA } },
            required: ["teamId", "members"],
          },
          effect: "read",
          execute: ({ teamId }: { teamId: string }) => {
            if (teamId !== TEAM_ID) throw new ToolError(`No team "${teamId}".`, { code: "TEAM_NOT_FOUND" });
            return { teamId, members };
          },
        }),
        defineTool({
          name: "expenses.listExpenses",
          description:
            "List one member's expense claims submitted in a date range, oldest first: date, category, merchant, amount in euro cents " +
            "and approval status (approved, pending, rejected).",
          inputSchema: {
            type: "object",
            properties: {
              memberId: { type: "string", description: 'The member, e.g. "mem_001".' },
              from: { type: "string", description: "First day, YYYY-MM-DD (inclusive)." },
              to: { type: "string", description: "Last day, YYYY-MM-DD (inclusive)." },
            },
            required: ["memberId", "from", "to"],
            additionalProperties: false,
          },
          outputSchema: {
            type: "object",
            properties: { memberId: { type: "string" }, expenses: { type: "array", items: EXPENSE_SCHEMA } },
            required: ["memberId", "expenses"],
          },
          effect: "read",
          execute: ({ memberId, from, to }: { memberId: string; from: string; to: string }) => {
            const list = expenses.get(memberId);
            if (list === undefined) throw new ToolError(`No member "${memberId}".`, { code: "MEMBER_NOT_FOUND" });
            return { memberId, expenses: list.filter((expense) => expense.date >= from && expense.date <= to) };
          },
        }),
        defineTool({
          name: "policy.getExpenseBudget",
          description:
            "Get the quarterly expense budget for a career level: the limit in euro cents and which statuses count against it.",
          inputSchema: {
            type: "object",
            properties: {
              level: { type: "string", enum: [...LEVELS], description: "Career level." },
              quarter: { type: "string", pattern: "^\\d{4}-Q[1-4]$", description: 'The quarter, e.g. "2026-Q3".' },
            },
            required: ["level", "quarter"],
            additionalProperties: false,
          },
          outputSchema: {
            type: "object",
            properties: {
              level: { type: "string" },
              quarter: { type: "string" },
              limitCents: { type: "integer", description: "Budget in euro cents." },
              countsStatuses: {
                type: "array",
                items: { type: "string" },
                description: "Expense statuses that count against the budget.",
              },
            },
            required: ["level", "quarter", "limitCents", "countsStatuses"],
          },
          effect: "read",
          execute: ({ level, quarter }: { level: Level; quarter: string }) => ({
            level,
            quarter,
            limitCents: LIMITS_CENTS[level],
            countsStatuses: ["approved", "pending"],
          }),
        }),
      ];
      const truth: ExpenseAnswer = {
        overBudget: members
          .map((member) => ({
            memberId: member.memberId,
            spentCents: spentCents(expenses.get(member.memberId)!),
            limitCents: LIMITS_CENTS[member.level],
          }))
          .filter((row) => row.spentCents > row.limitCents),
        membersChecked: members.length,
      };
      const names = new Map(members.map((member) => [member.memberId, member.name]));
      return {
        tools,
        truth,
        solveDirect: (session: DirectSession) => solveDirect(session, {}, {}),
        lean: {
          note: "member fields on request; expenses filtered by status, amount only",
          tools: [
            leanTool(tools[0]!, {
              listField: "members",
              itemFields: ["memberId", "name", "level", "title", "email"],
              description: `${tools[0]!.description} Optional: fields (which member fields to return).`,
            }),
            leanTool(tools[1]!, {
              listField: "expenses",
              itemFields: [
                "expenseId",
                "date",
                "category",
                "merchant",
                "amountCents",
                "currency",
                "status",
                "description",
              ],
              filters: [
                oneOfFilter(
                  "statuses",
                  "status",
                  ["approved", "pending", "rejected"],
                  "Only expenses with these approval statuses.",
                ),
              ],
              description: `${tools[1]!.description} Optional: statuses (which expenses to return), fields (which expense fields).`,
            }),
            tools[2]!,
          ],
          solveDirect: (session: DirectSession) =>
            solveDirect(
              session,
              { fields: ["memberId", "level"] },
              { statuses: ["approved", "pending"], fields: ["amountCents", "status"] },
            ),
        },
        checkAnswer(text) {
          const problems: string[] = [];
          const over = new Set(truth.overBudget.map((row) => row.memberId));
          const named = (member: Member) => text.includes(member.memberId) || mentionsPhraseOf(text, member.name);
          for (const member of members) {
            const row = truth.overBudget.find((candidate) => candidate.memberId === member.memberId);
            if (row === undefined) {
              if (named(member)) problems.push(`names ${member.memberId} (${member.name}), who is within budget`);
              continue;
            }
            if (!named(member)) problems.push(`misses ${member.memberId} (${member.name})`);
            else if (!mentionsAmount(text, row.spentCents))
              problems.push(`does not give ${member.memberId}'s spend of ${formatCents(row.spentCents)}`);
          }
          if (over.size === 0 && !/\bno(ne| member| one)\b/i.test(text))
            problems.push("does not say that nobody is over");
          if (!mentionsNumber(text, truth.membersChecked) && over.size === 0)
            problems.push(`does not say how many members were checked`);
          return problems;
        },
        program: `const team = await tools.people.listTeamMembers({ teamId: "${TEAM_ID}" });
const levels = [...new Set(team.members.map((m) => m.level))];
const budgets = await Promise.all(levels.map((level) => tools.policy.getExpenseBudget({ level, quarter: "${QUARTER}" })));
const limitByLevel = new Map(budgets.map((b) => [b.level, { limit: b.limitCents, counts: new Set(b.countsStatuses) }]));
const rows = await Promise.all(team.members.map(async (m) => {
  const { expenses } = await tools.expenses.listExpenses({ memberId: m.memberId, from: "${QUARTER_RANGE.from}", to: "${QUARTER_RANGE.to}" });
  const budget = limitByLevel.get(m.level)!;
  const spentCents = expenses.filter((e) => budget.counts.has(e.status)).reduce((sum, e) => sum + e.amountCents, 0);
  return { memberId: m.memberId, name: m.name, level: m.level, spentCents, limitCents: budget.limit };
}));
const overBudget = rows.filter((r) => r.spentCents > r.limitCents);
return { membersChecked: rows.length, overBudget };`,
        programMistake: { find: "e.amountCents", replace: "e.amount" },
        answerFromOutput(output) {
          const report = output as {
            membersChecked: number;
            overBudget: { memberId: string; spentCents: number; limitCents: number }[];
          };
          return {
            overBudget: report.overBudget.map(({ memberId, spentCents, limitCents }) => ({
              memberId,
              spentCents,
              limitCents,
            })),
            membersChecked: report.membersChecked,
          };
        },
        searchQueries: [
          "list the members of a team",
          "list a member's expense claims",
          "expense budget limit for a level",
        ],
        requiredTools: ["people.listTeamMembers", "expenses.listExpenses", "policy.getExpenseBudget"],
        render(answer) {
          const lines = [
            `${answer.overBudget.length} of ${answer.membersChecked} members of ${TEAM_ID} are over their ${QUARTER} budget (approved + pending):`,
          ];
          for (const row of answer.overBudget) {
            lines.push(
              `- ${names.get(row.memberId) ?? row.memberId} (${row.memberId}): EUR ${formatCents(row.spentCents)} against EUR ${formatCents(row.limitCents)}, over by EUR ${formatCents(row.spentCents - row.limitCents)}`,
            );
          }
          return lines.join("\n");
        },
      };
    },
  });
}

/** The team budget task of the main table: 24 members, 14-48 expense lines each. */
export const expenseBudgets = createExpenseBudgetTask({
  id: "expense-budgets",
  title: "Team expense budgets",
  note: "24 members, ~750 expense lines, 5 level budgets",
  teamSize: 24,
  linesPerMember: [14, 48],
  seed: 20260930,
});

/**
 * Anthropic's budget-compliance example at its published parameters: a team of 20, each
 * member with 50-100 expense line items for the quarter.
 */
export const publishedBudgetCompliance = createExpenseBudgetTask({
  id: "budget-compliance-published",
  title: "Budget compliance at Anthropic's published parameters",
  note: "20 members x 50-100 expense lines (Anthropic's advanced-tool-use example)",
  teamSize: 20,
  linesPerMember: [50, 100],
  seed: 20251124,
});

/** Lists the team, its level budgets and every member's expenses (`extras` narrow a lean API's answers). */
async function solveDirect(
  session: DirectSession,
  memberExtras: Record<string, unknown>,
  expenseExtras: Record<string, unknown>,
): Promise<ExpenseAnswer> {
  const [team] = await session.call([{ tool: "people.listTeamMembers", input: { teamId: TEAM_ID, ...memberExtras } }]);
  const roster = (team!.value as { members: Pick<Member, "memberId" | "level">[] }).members;
  const levels = [...new Set(roster.map((member) => member.level))].sort();
  const results = await session.call([
    ...levels.map((level) => ({ tool: "policy.getExpenseBudget", input: { level, quarter: QUARTER } })),
    ...roster.map((member) => ({
      tool: "expenses.listExpenses",
      input: { memberId: member.memberId, ...QUARTER_RANGE, ...expenseExtras },
    })),
  ]);
  const limits = new Map(
    results.slice(0, levels.length).map((result) => [result.value.level as string, result.value.limitCents as number]),
  );
  const overBudget = roster
    .map((member, index) => ({
      memberId: member.memberId,
      spentCents: spentCents((results[levels.length + index]!.value as { expenses: Expense[] }).expenses),
      limitCents: limits.get(member.level)!,
    }))
    .filter((row) => row.spentCents > row.limitCents);
  return { overBudget, membersChecked: roster.length };
}

/** A member named in full (first and last name). */
function mentionsPhraseOf(text: string, name: string): boolean {
  return text.toLowerCase().includes(name.toLowerCase());
}
