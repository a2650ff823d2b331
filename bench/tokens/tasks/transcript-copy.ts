// Meeting transcript copy: read a long transcript from the meetings system and write it,
// verbatim, as a page in the notes system. In direct mode the model must type the whole
// transcript back as the write call's argument: output tokens, the expensive kind.

import { ToolError } from "../../../src/errors.js";
import { defineTool } from "../../../src/registry/define-tool.js";
import {
  createRandom,
  defineTask,
  mentionsNumber,
  pick,
  randomInt,
  singleStringInput,
  type DirectSession,
} from "../task.js";

const MEETING_ID = "mtg_2026_10_q4_planning";
const SPACE_ID = "space_eng_planning";
const SPEAKERS = ["Ada Okafor", "Jonas Berg", "Priya Nair", "Mateo Silva", "Lena Novak", "Omar Haddad"];
const OPENERS = [
  "So",
  "Right",
  "Okay",
  "I think",
  "Just to add",
  "Quick point",
  "From my side",
  "To be honest",
  "Agreed, and",
  "One concern:",
];
const SUBJECTS = [
  "the checkout latency work",
  "the Q4 hiring plan",
  "the payments migration",
  "our on-call load",
  "the search relevance project",
  "the data retention policy",
  "the mobile release train",
  "the incident from last Tuesday",
  "the vendor contract renewal",
  "the API deprecation",
];
const VERBS = [
  "should land before",
  "is blocked on",
  "depends on",
  "will slip past",
  "needs a review after",
  "can ship alongside",
  "has to wait for",
];
const OBJECTS = [
  "the October freeze",
  "the security review",
  "the new load balancer",
  "budget sign-off",
  "the design doc",
  "the customer pilot",
  "the database upgrade",
  "the holiday traffic peak",
  "legal's feedback",
  "the staging rebuild",
];
const TAILS = [
  "and I'll write that up.",
  "so let's track it in the roadmap.",
  "which means we need an owner today.",
  "if nobody objects.",
  "but the numbers are still rough.",
  "and finance already agreed.",
  "so I'd rather not commit yet.",
  "and that's the main risk.",
];

function generateTranscript(seed: number): { title: string; transcript: string; lineCount: number } {
  const random = createRandom(seed);
  const lines: string[] = [];
  let seconds = 0;
  for (let index = 0; index < 240; index++) {
    seconds += randomInt(random, 6, 28);
    const stamp = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
      .map((part) => String(part).padStart(2, "0"))
      .join(":");
    const sentences = randomInt(random, 1, 3);
    const parts: string[] = [];
    for (let sentence = 0; sentence < sentences; sentence++) {
      parts.push(
        `${pick(random, OPENERS)} ${pick(random, SUBJECTS)} ${pick(random, VERBS)} ${pick(random, OBJECTS)}, ${pick(random, TAILS)}`,
      );
    }
    lines.push(`[${stamp}] ${pick(random, SPEAKERS)}: ${parts.join(" ")}`);
  }
  return { title: "Q4 engineering planning", transcript: lines.join("\n"), lineCount: lines.length };
}

export interface TranscriptCopyAnswer {
  readonly pageId: string;
  readonly characters: number;
}

export const transcriptCopy = defineTask<TranscriptCopyAnswer>({
  id: "transcript-copy",
  title: "Meeting transcript copy",
  question:
    `Copy the full transcript of meeting ${MEETING_ID} into the notes space ${SPACE_ID} as a new page titled ` +
    '"<meeting title> - transcript", word for word. Tell me the new page id and how many characters it holds.',
  control: false,
  note: "one ~9K-token transcript read, then written back verbatim",
  createWorld() {
    const meeting = generateTranscript(20261014);
    const pages = new Map<string, { spaceId: string; title: string; body: string }>();
    const tools = [
      defineTool({
        name: "meetings.getTranscript",
        description:
          "Get the full transcript of a recorded meeting: title, start time, duration, speakers, and the transcript text with one timestamped line per utterance.",
        inputSchema: singleStringInput("meetingId", 'The meeting, e.g. "mtg_2026_10_q4_planning".'),
        outputSchema: {
          type: "object",
          properties: {
            meetingId: { type: "string" },
            title: { type: "string" },
            startedAt: { type: "string" },
            durationMinutes: { type: "integer" },
            speakers: { type: "array", items: { type: "string" } },
            transcript: { type: "string", description: "Lines of `[hh:mm:ss] Speaker: text`, separated by newlines." },
          },
          required: ["meetingId", "title", "startedAt", "durationMinutes", "speakers", "transcript"],
        },
        effect: "read",
        execute: ({ meetingId }: { meetingId: string }) => {
          if (meetingId !== MEETING_ID)
            throw new ToolError(`No meeting "${meetingId}".`, { code: "MEETING_NOT_FOUND" });
          return {
            meetingId,
            title: meeting.title,
            startedAt: "2026-10-14T09:00:00Z",
            durationMinutes: 68,
            speakers: SPEAKERS,
            transcript: meeting.transcript,
          };
        },
      }),
      defineTool({
        name: "notes.createPage",
        description:
          "Create a page in a notes space with a title and a plain-text body (stored exactly as sent). Returns the new page's id, URL and body length in characters.",
        inputSchema: {
          type: "object",
          properties: {
            spaceId: { type: "string", description: 'The space, e.g. "space_eng_planning".' },
            title: { type: "string", minLength: 1, maxLength: 200 },
            body: { type: "string", description: "The page text, stored verbatim." },
          },
          required: ["spaceId", "title", "body"],
          additionalProperties: false,
        },
        outputSchema: {
          type: "object",
          properties: { pageId: { type: "string" }, url: { type: "string" }, characters: { type: "integer" } },
          required: ["pageId", "url", "characters"],
        },
        effect: "write",
        execute: ({ spaceId, title, body }: { spaceId: string; title: string; body: string }) => {
          if (spaceId !== SPACE_ID) throw new ToolError(`No notes space "${spaceId}".`, { code: "SPACE_NOT_FOUND" });
          const pageId = `page_${String(pages.size + 1).padStart(4, "0")}`;
          pages.set(pageId, { spaceId, title, body });
          return { pageId, url: `https://notes.example.com/${spaceId}/${pageId}`, characters: body.length };
        },
      }),
    ];
    const expectedTitle = `${meeting.title} - transcript`;
    return {
      tools,
      truth: { pageId: "page_0001", characters: meeting.transcript.length },
      async solveDirect(session: DirectSession) {
        const [read] = await session.call([{ tool: "meetings.getTranscript", input: { meetingId: MEETING_ID } }]);
        const seen = read!.value as { title: string; transcript: string };
        const [written] = await session.call([
          {
            tool: "notes.createPage",
            input: { spaceId: SPACE_ID, title: `${seen.title} - transcript`, body: seen.transcript },
          },
        ]);
        return { pageId: written!.value.pageId, characters: written!.value.characters };
      },
      checkAnswer(text) {
        const problems: string[] = [];
        if (!/\bpage_0001\b/.test(text)) problems.push("does not give the new page id, page_0001");
        if (!mentionsNumber(text, meeting.transcript.length))
          problems.push(`does not give the page's ${meeting.transcript.length} characters`);
        return problems;
      },
      program: `const meeting = await tools.meetings.getTranscript({ meetingId: "${MEETING_ID}" });
const page = await tools.notes.createPage({ spaceId: "${SPACE_ID}", title: meeting.title + " - transcript", body: meeting.transcript });
return { pageId: page.pageId, url: page.url, characters: page.characters, sourceCharacters: meeting.transcript.length, lines: meeting.transcript.split("\\n").length };`,
      programMistake: { find: "meeting.transcript.length", replace: "meeting.text.length" },
      answerFromOutput(output) {
        const report = output as { pageId: string; characters: number };
        return { pageId: report.pageId, characters: report.characters };
      },
      searchQueries: ["get a meeting transcript", "create a page in a notes space"],
      requiredTools: ["meetings.getTranscript", "notes.createPage"],
      render(answer) {
        return `Copied the transcript of "${meeting.title}" (${meeting.lineCount} lines) to ${SPACE_ID} as page ${answer.pageId} ("${expectedTitle}", ${answer.characters} characters).`;
      },
      verifyWorld() {
        const page = pages.get("page_0001");
        if (page === undefined) return ["no page was written"];
        const problems: string[] = [];
        if (pages.size !== 1) problems.push(`${pages.size} pages were written, expected 1`);
        if (page.body !== meeting.transcript) problems.push("the page body is not the transcript verbatim");
        if (page.title !== expectedTitle) problems.push(`the page title is ${JSON.stringify(page.title)}`);
        return problems;
      },
    };
  },
});
