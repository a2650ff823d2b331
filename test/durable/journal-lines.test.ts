// The envelope check a journal read makes of every journaled answer: a replay splices the envelope
// into the guest's answer text as it is, so a line edited to carry a second answer, or text that
// is not one JSON value, must be refused before anything is replayed. Hostile envelopes first, then
// one edited into a real journal line.

import { describe, expect, it } from "vitest";
import { decodeJournalText, encodeJournalLines, isEnvelopeOf } from "../../src/durable/journal-lines.js";
import type { CrossingEntry, JournalHeader } from "../../src/durable/run-journal.js";

const HEADER: JournalHeader = {
  t: "run",
  v: 1,
  id: "lines",
  createdAt: 1,
  expiresAt: 2,
  source: "return 1;",
  nowMs: 1,
  seed: [1, 2, 3, 4],
};

function crossingWith(envelope: string): CrossingEntry {
  return {
    t: "x",
    k: 0,
    kind: "mayWait",
    first: 7,
    count: 1,
    nowMs: 5,
    answers: [{ i: 7, n: 8, tool: "api.page", h: "sha256:0", e: envelope }],
  };
}

describe("isEnvelopeOf", () => {
  it("accepts a success or a failure of its own index, as the bridge writes them", () => {
    expect(isEnvelopeOf(7, '7,{"item":14,"next":8}')).toBe(true);
    expect(isEnvelopeOf(7, "7,null")).toBe(true);
    expect(isEnvelopeOf(0, '0,"text, with a comma"')).toBe(true);
    expect(isEnvelopeOf(7, '-8,{"callId":"r.8","code":"TOOL_ERROR","message":"no"}')).toBe(true);
    expect(isEnvelopeOf(0, '-1,{"code":"TOOL_ERROR"}')).toBe(true);
    expect(isEnvelopeOf(123_456, "123456,[1,2]")).toBe(true);
  });

  it("refuses an envelope that smuggles a second answer or is not one JSON value", () => {
    const hostile = [
      '7,{"item":1},9,{"forged":true}',
      '7,{"item":1}],[9,"M",9,1,[9,{"forged":true}]',
      "7,{",
      "7,",
      "7",
      "",
      ",{}",
      "-,{}",
      "7,{} trailing",
      '7,{"a":1}\n8,{"b":2}',
    ];
    for (const envelope of hostile) expect(isEnvelopeOf(7, envelope), envelope).toBe(false);
  });

  it("refuses the envelope of another call: another index, or a failure tag of another index", () => {
    for (const envelope of ["8,{}", "6,{}", "-7,{}", "-9,{}", "07,{}", "+7,{}", "-0,{}", `${"9".repeat(40)},{}`])
      expect(isEnvelopeOf(7, envelope), envelope).toBe(false);
  });
});

describe("decodeJournalText with an edited envelope", () => {
  it("refuses the line whose envelope was edited to carry a second answer, naming it", () => {
    const honest = encodeJournalLines([HEADER, crossingWith('7,{"item":14}')]);
    expect(decodeJournalText("lines", honest).journal.entries).toHaveLength(1);
    const edited = encodeJournalLines([HEADER, crossingWith('7,{"item":14},8,{"item":99}')]);
    expect(() => decodeJournalText("lines", edited)).toThrow(/damaged at line 2: not a journal entry/);
  });
});
