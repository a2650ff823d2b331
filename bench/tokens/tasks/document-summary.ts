// Control: summarize a long document. The model itself has to read every section, so the
// program can only hand the whole text back: the same tokens enter the context either way,
// and programmatic calling adds its instructions and code on top.

import { ToolError } from "../../../src/errors.js";
import { defineTool } from "../../../src/registry/define-tool.js";
import { createRandom, defineTask, pick, randomInt, singleStringInput, type DirectSession } from "../task.js";

const DOC_ID = "doc_ir_2291";
const HEADINGS = [
  "Summary",
  "Customer impact",
  "Timeline",
  "Detection",
  "Root cause",
  "Contributing factors",
  "What went well",
  "What went poorly",
  "Where we got lucky",
  "Action items",
  "Follow-up owners",
  "Appendix: metrics",
];
const SUBJECTS = [
  "The payments gateway",
  "The checkout service",
  "Our alerting",
  "The on-call engineer",
  "The database failover",
  "The retry policy",
  "The deploy pipeline",
  "The status page",
  "The load balancer",
  "Customer support",
];
const VERBS = [
  "stopped responding to",
  "recovered after",
  "amplified",
  "masked",
  "correctly flagged",
  "was slowed down by",
  "depended on",
  "hid the effect of",
];
const OBJECTS = [
  "connection pool exhaustion",
  "the 14:02 configuration push",
  "a stale DNS record",
  "the regional failover",
  "duplicate webhook deliveries",
  "the rate limiter",
  "an expired certificate",
  "the nightly batch job",
];
const DETAILS = [
  "for about nine minutes",
  "in the EU region only",
  "before anyone was paged",
  "for 3% of requests",
  "until the rollback finished",
  "during peak traffic",
  "without losing any orders",
  "while the dashboard stayed green",
];

interface Section {
  readonly heading: string;
  readonly text: string;
}

function generate(seed: number): Section[] {
  const random = createRandom(seed);
  return HEADINGS.map((heading) => {
    const paragraphs: string[] = [];
    const paragraphCount = randomInt(random, 9, 12);
    for (let paragraph = 0; paragraph < paragraphCount; paragraph++) {
      const sentences: string[] = [];
      for (let sentence = randomInt(random, 4, 7); sentence > 0; sentence--) {
        sentences.push(
          `${pick(random, SUBJECTS)} ${pick(random, VERBS)} ${pick(random, OBJECTS)} ${pick(random, DETAILS)}.`,
        );
      }
      paragraphs.push(sentences.join(" "));
    }
    return { heading, text: paragraphs.join("\n\n") };
  });
}

export interface SummaryAnswer {
  /** One entry per section, in order: its heading and its first sentence (what the summary leads with). */
  readonly sections: readonly { readonly heading: string; readonly lead: string }[];
}

function summarize(sections: readonly Section[]): SummaryAnswer {
  return {
    sections: sections.map((section) => ({
      heading: section.heading,
      lead: section.text.slice(0, section.text.indexOf(".") + 1),
    })),
  };
}

export const documentSummary = defineTask<SummaryAnswer>({
  id: "document-summary",
  title: "Summarize a document (control)",
  question: `Summarize incident review ${DOC_ID} for me, one line per section, in the document's order.`,
  control: true,
  note: "the answer needs the full ~10K-token text in the context",
  createWorld() {
    const sections = generate(20261020);
    const tools = [
      defineTool({
        name: "library.getDocument",
        description:
          "Get a document from the knowledge library by id: title, author, last update and its full text as sections (heading and text).",
        inputSchema: singleStringInput("docId", 'The document, e.g. "doc_ir_2291".'),
        outputSchema: {
          type: "object",
          properties: {
            docId: { type: "string" },
            title: { type: "string" },
            author: { type: "string" },
            updatedAt: { type: "string" },
            sections: {
              type: "array",
              items: {
                type: "object",
                properties: { heading: { type: "string" }, text: { type: "string" } },
                required: ["heading", "text"],
              },
            },
          },
          required: ["docId", "title", "author", "updatedAt", "sections"],
        },
        effect: "read",
        execute: ({ docId }: { docId: string }) => {
          if (docId !== DOC_ID) throw new ToolError(`No document "${docId}".`, { code: "DOCUMENT_NOT_FOUND" });
          return {
            docId,
            title: "Incident review: checkout outage of 2026-10-09",
            author: "Lena Novak",
            updatedAt: "2026-10-16T11:20:00Z",
            sections,
          };
        },
      }),
      defineTool({
        name: "library.searchDocuments",
        description:
          "Search the knowledge library by words in titles and text; returns document ids, titles and a short snippet.",
        inputSchema: {
          type: "object",
          properties: { query: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 20 } },
          required: ["query"],
          additionalProperties: false,
        },
        effect: "read",
        execute: () => ({ results: [] }),
      }),
    ];
    return {
      tools,
      truth: summarize(sections),
      async solveDirect(session: DirectSession) {
        const [doc] = await session.call([{ tool: "library.getDocument", input: { docId: DOC_ID } }]);
        return summarize(doc!.value.sections as Section[]);
      },
      checkAnswer(text) {
        // Every section, in the document's order: each heading found after the previous one.
        const lower = text.toLowerCase();
        const problems: string[] = [];
        let from = 0;
        for (const section of sections) {
          const at = lower.indexOf(section.heading.toLowerCase(), from);
          if (at < 0) problems.push(`misses the section "${section.heading}" (or gives it out of order)`);
          else from = at + section.heading.length;
        }
        return problems;
      },
      program: `// The summary needs the whole text: return it as it is.
const doc = await tools.library.getDocument({ docId: "${DOC_ID}" });
return { title: doc.title, sections: doc.sections.map((s) => ({ heading: s.heading, text: s.text })) };`,
      programMistake: { find: "s.text }", replace: "s.body }" },
      answerFromOutput(output) {
        return summarize((output as { sections: Section[] }).sections);
      },
      searchQueries: ["get a document by id with its full text"],
      requiredTools: ["library.getDocument"],
      render(answer) {
        return [
          `Incident review ${DOC_ID}, section by section:`,
          ...answer.sections.map((section) => `- ${section.heading}: ${section.lead}`),
        ].join("\n");
      },
    };
  },
});
