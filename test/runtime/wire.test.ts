import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  batchOpensWait,
  batchSentAhead,
  type CallBatch,
  type CallRequest,
  callNoteFrame,
  capErrorText,
  decodeCallAnswers,
  decodeCallBatch,
  decodeProgramResult,
  encodeCallAnswers,
  encodeCallBatch,
  encodeCallFailure,
  encodeCallSuccess,
  encodeProgramError,
  decodeGuestConfig,
  encodeGuestConfig,
  type GuestConfig,
  type LogLevel,
  logBufferUnits,
  MAX_ERROR_TEXT_CHARS,
  MAX_LOG_LINE_CHARS,
  openLogWriter,
  readCallNote,
  readLogLines,
  stackFrames,
  writeLogLine,
  decodeReplayLog,
  encodeReplayEntry,
  encodeReplayLog,
  encodeReplayLogField,
  isReplayLog,
  readAnswerList,
} from "../../runtime/wire.js";

const request: fc.Arbitrary<CallRequest> = fc.oneof(
  fc.record({ kind: fc.constant("call" as const), path: fc.string({ unit: "grapheme" }), argsJson: fc.string() }),
  fc.record({
    kind: fc.constant("refused" as const),
    path: fc.string(),
    code: fc.string(),
    bytes: fc.nat(),
    reason: fc.string({ unit: "binary" }),
  }),
);
const batch: fc.Arbitrary<CallBatch> = fc.record({
  answer: fc.constantFrom("now" as const, "mayWait" as const, "later" as const),
  opensWait: fc.option(fc.constant(true as const), { nil: undefined }),
  requests: fc.array(request),
});

describe("call batches (guest to host)", () => {
  it("decode what they encode, whatever the paths, arguments and reasons hold", () => {
    fc.assert(
      fc.property(batch, (sent) => {
        expect(decodeCallBatch(encodeCallBatch(sent))).toEqual(sent);
      }),
    );
  });

  it("say whether they open a wait, and whether they were sent ahead, in their first letter, which the isolate's side reads without decoding", () => {
    fc.assert(
      fc.property(batch, (sent) => {
        expect(batchOpensWait(encodeCallBatch(sent))).toBe(sent.opensWait === true);
        expect(batchSentAhead(encodeCallBatch(sent))).toBe(sent.answer === "later");
      }),
    );
    expect(batchOpensWait("W")).toBe(true);
    expect(batchOpensWait("w")).toBe(false);
    expect(batchOpensWait("X")).toBe(false);
    expect(batchOpensWait(undefined)).toBe(false);
  });

  it("carry arguments as they were serialized, without a second layer of escaping", () => {
    const argsJson = '{"q":"a \\"quoted\\" 12:34 value"}';
    const text = encodeCallBatch({ answer: "now", requests: [{ kind: "call", path: "a.b", argsJson }] });
    expect(text).toBe(`nc3:a.b${argsJson.length}:${argsJson}`);
  });

  it.each([
    ["not a string", 42],
    ["empty", ""],
    ["an unknown header", "xc1:a2:{}"],
    ["an unknown kind", "nz1:a2:{}"],
    ["a length past the end", "nc1:a9:{}"],
    ["a missing colon", "nc1a2:{}"],
    ["a length of 11 digits", "nc1:a00000000002:{}"],
    ["a refusal without a reason", "nr1:a13:INPUT_INVALID1:0"],
    ["a refusal whose size is not a number", "nr1:a13:INPUT_INVALID1:x0:"],
    ["a negative length", "nc-1:a"],
  ])("refuse a batch that is %s instead of throwing", (_label, text) => {
    expect(decodeCallBatch(text)).toBeUndefined();
  });

  it("never throw on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        decodeCallBatch(`n${text}`);
        decodeCallBatch(`w${text}`);
        decodeReplayLog(`v.${text}`);
      }),
    );
    // A length of more than 10 digits, or one that runs past the text, is no field (FieldReader).
    expect(decodeCallBatch("nc12345678901:a")).toBeUndefined();
    expect(decodeCallBatch("nc1:a99999999:{}")).toBeUndefined();
    expect(decodeReplayLog("v.12345678901:a")).toBeUndefined();
    expect(decodeReplayLog("v.00000000001:a")).toBeUndefined();
  });
});

describe("call answers (host to guest)", () => {
  it("decode what they encode, each with its index and call id", () => {
    const answers = decodeCallAnswers(
      encodeCallAnswers([
        encodeCallSuccess(0, '{"rows":[1,2]}'),
        encodeCallFailure(3, "p.4", "TOOL_ERROR", "it broke", { status: 500 }),
        encodeCallFailure(4, null, "RUN_FINISHED", "late"),
      ]),
    );
    expect(answers).toEqual([
      { ok: true, index: 0, value: { rows: [1, 2] } },
      { ok: false, index: 3, callId: "p.4", code: "TOOL_ERROR", message: "it broke", details: { status: 500 } },
      { ok: false, index: 4, callId: null, code: "RUN_FINISHED", message: "late" },
    ]);
    expect(decodeCallAnswers(encodeCallAnswers([]))).toEqual([]);
  });

  it("cross as one flat array of tag and payload, a failure's tag negative, and skip a pair whose tag is not a number", () => {
    const text = encodeCallAnswers([encodeCallSuccess(2, "null"), encodeCallFailure(0, "p.1", "TOOL_ERROR", "no")]);
    expect(JSON.parse(text)).toEqual([2, null, -1, { callId: "p.1", code: "TOOL_ERROR", message: "no" }]);
    expect(decodeCallAnswers('["2",null,1,"v"]')).toEqual([{ ok: true, index: 1, value: "v" }]);
  });

  it("cap a failure's message before it crosses", () => {
    const [answer] = decodeCallAnswers(encodeCallAnswers([encodeCallFailure(0, "p.1", "TOOL_ERROR", "x".repeat(1e6))]));
    expect(answer?.ok === false && answer.message.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_CHARS);
  });
});

describe("capErrorText", () => {
  it("leaves a short text alone and cuts a long one to the limit behind a marker that says so", () => {
    expect(capErrorText("short")).toBe("short");
    const cut = capErrorText("A".repeat(2e7));
    expect(cut.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_CHARS);
    expect(cut).toMatch(/^A+… \[cut: 20000000 characters in all\]$/);
    expect(capErrorText("B ".repeat(50), 50)).toHaveLength(50);
    // One word shorter than the cut's back-off is never split: it could be a secret.
    expect(capErrorText("B".repeat(100), 50)).toBe("… [cut: 100 characters in all]");
  });

  it("stays within the limit when String.prototype.slice was replaced, as a program may do in the guest", () => {
    const slice = String.prototype.slice;
    String.prototype.slice = function (this: string) {
      return this.toString();
    };
    try {
      expect(capErrorText("C".repeat(100_000)).length).toBeLessThanOrEqual(MAX_ERROR_TEXT_CHARS);
    } finally {
      String.prototype.slice = slice;
    }
  });
});

describe("stackFrames", () => {
  it("drops the message lines a stack starts with and keeps its frames", () => {
    expect(stackFrames(`Error: ${"A".repeat(1000)}\nsecond line\n    at main (program.js:3:9)\n    at x`)).toBe(
      "    at main (program.js:3:9)\n    at x",
    );
    expect(stackFrames("Error: no frames")).toBe("");
  });
});

describe("a failed call's note frame", () => {
  it("reads back the note it carries as the last frame, one line, cut at 1,024 characters", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 2_000 }), (note) => {
        const stack = `ToolCallError: m\n    at main (program.js:3:9)\n${callNoteFrame(note)}`;
        expect(stack.split("\n")).toHaveLength(3);
        const shown = note.length > 1_024 ? `${note.slice(0, 1_024)}…` : note;
        expect(readCallNote(stack)).toBe(shown.replaceAll("\n", " "));
      }),
    );
    expect(readCallNote("Error: m\n    at main (program.js:3:9)")).toBeUndefined();
  });
});

describe("program results (guest to host)", () => {
  it("cap an error's message and stack on both sides of the crossing", () => {
    const encoded = encodeProgramError("RUNTIME_ERROR", "A".repeat(1e6), `    at ${"f".repeat(1e6)}`);
    expect(encoded.length).toBeLessThan(3 * MAX_ERROR_TEXT_CHARS);
    const forged = `e${JSON.stringify({ code: "RUNTIME_ERROR", message: "M".repeat(1e6), stack: "S".repeat(1e6) })}`;
    const decoded = decodeProgramResult(forged);
    expect(decoded.ok === false && decoded.message.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_CHARS);
    expect(decoded.ok === false && decoded.stack?.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_CHARS);
  });
});

describe("the log buffer (guest to host through shared memory)", () => {
  const config = (maxLogLines: number, maxLogBytes: number): GuestConfig => ({
    maxArgumentBytes: 0,
    maxOutputBytes: 0,
    maxLogLines,
    maxLogBytes,
  });
  const bufferFor = (limits: GuestConfig) => new SharedArrayBuffer(2 * logBufferUnits(limits));
  const level: fc.Arbitrary<LogLevel> = fc.constantFrom("log", "info", "warn", "error", "debug");

  it("reads back every committed line with its level, in order, surrogates and all", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(level, fc.string({ unit: "binary", maxLength: 300 })), { maxLength: 40 }),
        (lines) => {
          const buffer = bufferFor(config(200, 16 * 1024));
          const writer = openLogWriter(buffer);
          for (const [lineLevel, text] of lines) {
            expect(writeLogLine(writer, lineLevel, text, 16 * 1024)).toBe(new TextEncoder().encode(text).length);
          }
          const expected = lines.map(([lineLevel, text]) => ({ level: lineLevel, text }));
          expect(readLogLines(buffer)).toEqual(expected);
          // The host's native decoder reads the same lines, lone surrogates included.
          const native = (units: Uint16Array) =>
            Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString("utf16le");
          expect(readLogLines(buffer, native)).toEqual(expected);
        },
      ),
    );
  });

  it("is sized so that lines within the run's budget, and the truncation marker, always fit", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 20_000 }), (maxLines, maxBytes) => {
        const writer = openLogWriter(bufferFor(config(maxLines, maxBytes)));
        let bytes = 0;
        // Worst case for the buffer: lines of one-byte characters, as long as the budget allows.
        for (let line = 0; line < maxLines; line++) {
          const length = Math.min(MAX_LOG_LINE_CHARS + 40, maxBytes - bytes - 1);
          if (length <= 0) break;
          const text = "x".repeat(length);
          bytes += text.length + 1;
          expect(writeLogLine(writer, "log", text, maxBytes)).toBe(text.length);
        }
        const marker = "[switchyard: log truncated after 999 lines, 99999 bytes]";
        expect(writeLogLine(writer, "warn", marker, 1_024)).toBe(marker.length);
      }),
    );
  });

  it("refuses a line that does not fit and keeps what was there", () => {
    const buffer = new SharedArrayBuffer(2 * 40);
    const writer = openLogWriter(buffer);
    expect(writeLogLine(writer, "log", "first", 1_000)).toBe(5);
    expect(writeLogLine(writer, "log", "y".repeat(100), 1_000)).toBe(-1);
    expect(readLogLines(buffer)).toEqual([{ level: "log", text: "first" }]);
  });

  it("refuses a line over the bytes left, counting UTF-8 bytes, not characters", () => {
    const buffer = bufferFor(config(10, 1000));
    const writer = openLogWriter(buffer);
    expect(writeLogLine(writer, "log", "é€😀", 9)).toBe(9);
    expect(writeLogLine(writer, "log", "é€😀", 8)).toBe(-1);
    expect(readLogLines(buffer)).toEqual([{ level: "log", text: "é€😀" }]);
  });

  it("ignores a line written but not yet committed, and a damaged end", () => {
    const buffer = bufferFor(config(10, 1000));
    const writer = openLogWriter(buffer);
    writeLogLine(writer, "log", "kept", 1_000);
    const committed = Atomics.load(writer.header, 0);
    writeLogLine(writer, "log", "torn", 1_000);
    Atomics.store(writer.header, 0, committed);
    expect(readLogLines(buffer)).toEqual([{ level: "log", text: "kept" }]);
    // An end past the buffer is read up to the buffer's end, never beyond.
    Atomics.store(writer.header, 0, 2 ** 30);
    expect(
      readLogLines(buffer)
        .map((line) => line.text)
        .slice(0, 2),
    ).toEqual(["kept", "torn"]);
    writer.units[2 + 3 + 4] = 99;
    expect(readLogLines(buffer).map((line) => line.text)).toEqual(["kept"]);
  });
});

const LIMITS = { maxArgumentBytes: 1024, maxOutputBytes: 2048, maxLogBytes: 512, maxLogLines: 10 };

describe("the guest config on the wire", () => {
  it("round-trips the limits, and has no input when the run has none", () => {
    const decoded = decodeGuestConfig(encodeGuestConfig(LIMITS));
    expect(decoded).toEqual(LIMITS);
    expect(Object.hasOwn(decoded, "input")).toBe(false);
  });

  it("splices the input's JSON text in and decodes it with the limits", () => {
    for (const input of [null, 0, "", 'text with " and \\u2028', [1, { a: [] }], { nested: { list: [true, null] } }]) {
      const decoded = decodeGuestConfig(encodeGuestConfig(LIMITS, JSON.stringify(input)));
      expect(decoded).toEqual({ ...LIMITS, input });
      expect(Object.hasOwn(decoded, "input")).toBe(true);
    }
  });

  it("sends only the limits, whatever else the host object carries", () => {
    const withExtra = { ...LIMITS, secret: "host-only" } as typeof LIMITS;
    expect(decodeGuestConfig(encodeGuestConfig(withExtra))).toEqual(LIMITS);
  });
});

describe("the replay log and chunks of a durable run", () => {
  it("round-trips any crossings and flag through a replay log, and reads nothing malformed", () => {
    const flags = ["more", "idle", "unanswerable"] as const;
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" })), fc.constantFrom(...flags), (crossings, flag) => {
        const text = encodeReplayLog(flag, crossings.map(encodeReplayLogField).join(""));
        expect(isReplayLog(text)).toBe(true);
        expect(decodeReplayLog(text)).toEqual({ flag, crossings });
      }),
    );
    expect(decodeReplayLog("v?3:abc")).toBeUndefined();
    expect(decodeReplayLog("v.9:abc")).toBeUndefined();
    expect(decodeReplayLog("v.3abc")).toBeUndefined();
    // No call batch is a replay log.
    expect(isReplayLog(encodeCallBatch({ answer: "now", requests: [] }))).toBe(false);
  });

  it("reads a chunk entry's answer as the guest reads a crossing's answer", () => {
    const envelopes = [encodeCallSuccess(3, '{"a":1}'), encodeCallFailure(4, "r.5", "NOT_FOUND", "gone")];
    const entry = JSON.parse(encodeReplayEntry(7, "n", 3, 2, 1234, envelopes)) as unknown[];
    expect(entry.slice(0, 4)).toEqual([7, "n", 3, 2]);
    const seen: unknown[] = [];
    readAnswerList(
      entry[4] as unknown[],
      (index, value) => seen.push(["ok", index, value]),
      (index, failure) => seen.push(["failed", index, failure.code]),
      (nowMs) => seen.push(["clock", nowMs]),
    );
    expect(seen).toEqual([
      ["clock", 1234],
      ["ok", 3, { a: 1 }],
      ["failed", 4, "NOT_FOUND"],
    ]);
  });
});
