// The host/guest wire format, defined once and imported by both sides: the guest runtime
// (bundled into every isolate) and the host bridge. Everything that crosses is a string (or,
// for the console, a shared buffer of UTF-16 code units), so nothing but plain data can cross;
// these helpers are the only encoders and decoders, and every decoder refuses what it cannot
// read instead of throwing. This file must stay free of imports and of any Node or DOM API.

/** Names the guest asks the host for that are not registry tools. */
export const SEARCH_PATH = "$search";
export const DESCRIBE_PATH = "$describe";
/**
 * Requests of the run itself rather than of a tool: they cross in batches like calls, but get
 * no call record and use none of the call budget. `$timer` carries a delay in ms as its text and
 * answers when it has passed (the guest's one wake-up at a time); `$budget` answers at once what
 * is left of the run's limits.
 */
export const TIMER_PATH = "$timer";
export const BUDGET_PATH = "$budget";

// Captured when the module is evaluated, which in the guest is before any program runs: a
// program that replaces these globals later cannot reach what crosses through them.
const parseJson = JSON.parse;
const stringifyJson = JSON.stringify;
const Int32ArrayCtor = Int32Array;
const Uint16ArrayCtor = Uint16Array;
const atomicsLoad = Atomics.load;
const atomicsStore = Atomics.store;
const reflectApply = Reflect.apply;
const indexOfString = String.prototype.indexOf;
const sliceString = String.prototype.slice;

// `text.charCodeAt(index)` as a function of the text, bound now: the log writer calls it per unit.
const charCodeOf = reflectApply(Function.prototype.bind, Function.prototype.call, [String.prototype.charCodeAt]) as (
  text: string,
  index: number,
) => number;

/** `text.indexOf(search, from)` with the indexOf captured before any program ran. */
function indexOfText(text: string, search: string, from = 0): number {
  return reflectApply(indexOfString, text, [search, from]) as number;
}

/** `text.slice(start, end)` with the slice captured before any program ran. */
function sliceOf(text: string, start: number, end?: number): string {
  return reflectApply(sliceString, text, end === undefined ? [start] : [start, end]) as string;
}

// ---- limits both sides apply ----

/**
 * Characters an error message or stack keeps wherever it travels (inside the isolate before it
 * crosses, in call failures, in a run's error); the rest is replaced by a visible marker, so a
 * capped text is never longer than this.
 */
export const MAX_ERROR_TEXT_CHARS = 8_192;

/** One console line longer than this is cut, so one huge value cannot use the whole log budget. */
export const MAX_LOG_LINE_CHARS = 4_096;

/** A tool path longer than this is refused inside the isolate: no tool has such a name. */
export const MAX_TOOL_PATH_CHARS = 512;

/** Most timers a program may have pending at once; one more throws a RangeError in the guest. */
export const MAX_PENDING_TIMERS = 10_000;

/** Calls one crossing carries at most; a wider fan-out crosses in several batches. */
export const MAX_BATCH_CALLS = 256;

/**
 * Full batches one run sends ahead (answered `later`) before a batch that blocks: the host
 * holds at most this many of a run's batches it has not taken, whatever a program does in a turn.
 */
export const MAX_BATCHES_AHEAD = 3;

/**
 * Argument characters the batches sent ahead since the last blocking one may carry: the host
 * takes a run's waiting batches one after another in one turn of its event loop, and parsing
 * arguments costs up to ~75 ms a MB (objects with distinct keys). Measured 2026-12-03: 30 calls
 * of 458 KB such objects held the host's loop 305 ms at once with 3 batches ahead, 80 ms with
 * none; past this budget a batch blocks, and the host's loop turns between blocking batches.
 */
export const MAX_BYTES_AHEAD = 256 * 1024;

/** How far a cut moves back to the start of the word it would split (see `wordCut`). */
const MAX_CUT_BACKOFF = 256;

/** Blanks and controls, quotes, brackets, `,` `;` `<` `>`: what ends a word a secret could be part of. */
function isWordBreak(code: number): boolean {
  if (code <= 32) return true;
  // " ' ` , ; ( ) [ ] { } < >
  return (
    code === 34 ||
    code === 39 ||
    code === 96 ||
    code === 44 ||
    code === 59 ||
    code === 40 ||
    code === 41 ||
    code === 91 ||
    code === 93 ||
    code === 123 ||
    code === 125 ||
    code === 60 ||
    code === 62
  );
}

/** `[A-Za-z0-9_\-+/=.]`: the characters of tokens, keys and base64, which the host's cut-head rules read. */
function isTokenCharacter(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 45 ||
    code === 43 ||
    code === 47 ||
    code === 61 ||
    code === 46
  );
}

/**
 * Where to cut `text` to keep at most `at` characters without ending inside a word: a secret cut
 * in two leaves a head of a few characters that no redaction rule can recognise any more (the
 * guest cuts before the host's redactor sees the text). The cut moves back to the start of the word
 * it would split, at most MAX_CUT_BACKOFF characters; a longer word is kept up to its last
 * character outside `[A-Za-z0-9_\-+/=.]`, or whole up to the cut when it has none: a head that long
 * is what the host's cut-head rule redacts. Reads characters with the charCodeAt captured before
 * any program ran.
 */
export function wordCut(text: string, at: number): number {
  if (at <= 0) return 0;
  if (at >= text.length) return at;
  if (isWordBreak(charCodeOf(text, at)) || isWordBreak(charCodeOf(text, at - 1))) return at;
  // biome-ignore lint/complexity/useMathMinMax: Math.max is a global a program may replace.
  const floor = at - MAX_CUT_BACKOFF > 0 ? at - MAX_CUT_BACKOFF : 0;
  for (let index = at - 1; index >= floor; index--) if (isWordBreak(charCodeOf(text, index))) return index + 1;
  if (floor === 0) return 0;
  if (!isTokenCharacter(charCodeOf(text, at - 1)) || !isTokenCharacter(charCodeOf(text, at))) return at;
  for (let index = at - 1; index >= floor; index--) if (!isTokenCharacter(charCodeOf(text, index))) return index + 1;
  return at;
}

/**
 * `text` cut to at most `maxChars` characters, ending in a marker that says how much was cut; the
 * cut never splits a word (`wordCut`), so no secret's head is left before the marker.
 * It slices with the `slice` captured before any program ran; the result's length is checked
 * all the same, and a fixed text is returned if it does not hold.
 */
export function capErrorText(text: string, maxChars: number = MAX_ERROR_TEXT_CHARS): string {
  if (text.length <= maxChars) return text;
  const marker = `… [cut: ${text.length} characters in all]`;
  const keep = maxChars - marker.length;
  // biome-ignore lint/complexity/useMathMinMax: Math.max is a global a program may replace.
  const cut = `${sliceOf(text, 0, wordCut(text, keep > 0 ? keep : 0))}${marker}`;
  return typeof cut === "string" && cut.length <= maxChars ? cut : `[a text of ${text.length} characters, cut]`;
}

/**
 * The frames of a V8 stack without the message line(s) it starts with: the message travels on
 * its own, and a long message must not push the frames (and so the program's line) out of the cap.
 */
export function stackFrames(stack: string): string {
  const at = reflectApply(indexOfString, stack, ["\n    at "]) as number;
  return at < 0 ? "" : sliceOf(stack, at + 1);
}

// ---- a failed call's note, in its error's stack ----

/** Opens the frame that carries a failed call's note (see `callNoteFrame`). */
const NOTE_FRAME = "    at ToolCallError [";
const MAX_NOTE_CHARS = 1_024;

/**
 * The last frame of a failed call's stack, carrying `note` (the call's code, tool and id):
 * isolated-vm copies an error out as a plain Error with its message and frames only, so the note
 * of a rejection nobody handled reaches the host there (`readCallNote`). The note is cut at
 * MAX_NOTE_CHARS and its newlines become spaces, with the methods captured before any program ran.
 */
export function callNoteFrame(note: string): string {
  let text = note.length > MAX_NOTE_CHARS ? `${sliceOf(note, 0, MAX_NOTE_CHARS)}…` : note;
  for (let at = indexOfText(text, "\n"); at >= 0; at = indexOfText(text, "\n", at + 1)) {
    text = `${sliceOf(text, 0, at)} ${sliceOf(text, at + 1)}`;
  }
  return `${NOTE_FRAME}${text}]`;
}

/** The note `callNoteFrame` left in a stack (host side), or undefined when there is none. */
export function readCallNote(stack: string): string | undefined {
  const at = stack.lastIndexOf(`\n${NOTE_FRAME}`);
  if (at < 0) return undefined;
  const end = stack.indexOf("]\n", at);
  const note = stack.slice(at + 1 + NOTE_FRAME.length, end < 0 ? stack.lastIndexOf("]") : end);
  return note.length > 0 && note.length <= MAX_NOTE_CHARS + 1 ? note : undefined;
}

// ---- calls, guest to host ----

/**
 * One call as the guest sends it: a call with its JSON arguments, or a call the guest refused
 * before its arguments could cross (a BigInt, a function, over `maxArgumentBytes`), which
 * carries only its code, the bytes measured before the refusal and the reason.
 */
export type CallRequest =
  | { readonly kind: "call"; readonly path: string; readonly argsJson: string }
  | {
      readonly kind: "refused";
      readonly path: string;
      readonly code: string;
      readonly bytes: number;
      readonly reason: string;
    };

/**
 * When the host answers a batch's calls. `now`: in the crossing's answer, every answer ready.
 * `mayWait`: the batch holds one call and nothing else is in flight, so the program is most
 * likely waiting for it; the host may hold the crossing a short while for its answer (a few ms,
 * bounded: the program may have gone on without it), and a slower answer comes through `wait`. `later`: a full
 * batch sent ahead while the program goes on making calls; nobody reads this crossing's answer,
 * so the calls' answers come with the next crossing's (or a `wait`).
 */
export type BatchAnswer = "now" | "mayWait" | "later";

/** The calls of one crossing, and when the host answers them. */
export interface CallBatch {
  readonly answer: BatchAnswer;
  /**
   * The guest has no `wait` outstanding and wants one opened once this crossing is answered: the
   * side that holds the isolate opens it (`batchOpensWait`), so answers that come later reach the
   * guest without a second crossing from it. Absent: the guest opens its waits itself.
   */
  readonly opensWait?: true | undefined;
  readonly requests: readonly CallRequest[];
}

// The one letter a batch starts with, and back: the decoder reads what the encoder writes. The
// upper-case letter is the same answer with `opensWait`.
const BATCH_MARKS: Readonly<Record<BatchAnswer, string>> = { now: "n", mayWait: "w", later: "l" };
const OPENING_MARKS: Readonly<Record<BatchAnswer, string>> = { now: "N", mayWait: "W", later: "L" };
const ANSWERS_BY_MARK: ReadonlyMap<string, BatchAnswer> = new Map(
  (Object.keys(BATCH_MARKS) as BatchAnswer[]).map((answer) => [BATCH_MARKS[answer], answer]),
);
const ANSWERS_BY_OPENING_MARK: ReadonlyMap<string, BatchAnswer> = new Map(
  (Object.keys(OPENING_MARKS) as BatchAnswer[]).map((answer) => [OPENING_MARKS[answer], answer]),
);

// Each field is `<length>:<text>`, so arguments cross as they were serialized, never escaped
// into a second layer of JSON, and the host slices them out without parsing anything.
function field(text: string): string {
  return `${text.length}:${text}`;
}

/**
 * Reads `field`s of a text from `at` on (host side), moving `at` past each one read. Linear in the text.
 */
class FieldReader {
  readonly text: string;
  at: number;

  constructor(text: string, at: number) {
    this.text = text;
    this.at = at;
  }

  /** The next field's text, or undefined when none is well formed at `at`. */
  next(): string | undefined {
    const { text } = this;
    let at = this.at;
    let length = 0;
    let digits = 0;
    // A length is 1 to 10 decimal digits, then a colon.
    for (; at < text.length && digits <= 10; at++, digits++) {
      const code = text.charCodeAt(at);
      if (code < 48 || code > 57) break;
      length = length * 10 + (code - 48);
    }
    if (digits === 0 || digits > 10 || text[at] !== ":" || at + 1 + length > text.length) return undefined;
    this.at = at + 1 + length;
    return text.slice(at + 1, this.at);
  }
}

/** The start of a batch; its calls' encodings follow, in call order. */
export function startCallBatch(answer: BatchAnswer, opensWait = false): string {
  return opensWait ? OPENING_MARKS[answer] : BATCH_MARKS[answer];
}

/**
 * Whether an encoded batch asks for a `wait` to be opened once it is answered (`CallBatch.opensWait`),
 * read from its first letter only: the isolate's side checks it on every crossing without decoding.
 */
export function batchOpensWait(text: unknown): boolean {
  return typeof text === "string" && ANSWERS_BY_OPENING_MARK.has(text.charAt(0));
}

/** Whether an encoded batch was sent ahead (`later`): the guest does not wait for its answer. */
export function batchSentAhead(text: unknown): boolean {
  return typeof text === "string" && (text.charAt(0) === BATCH_MARKS.later || text.charAt(0) === OPENING_MARKS.later);
}

/** Encodes a call of a batch (guest side). */
export function encodeCall(path: string, argsJson: string): string {
  return encodeCallArguments(encodeCallPath(path), argsJson);
}

/** The start of a call's encoding, up to its arguments: the same for every call of one path, so it can be kept. */
export function encodeCallPath(path: string): string {
  return `c${field(path)}`;
}

/** Encodes a call of a batch from its path's `encodeCallPath` (guest side). */
export function encodeCallArguments(encodedPath: string, argsJson: string): string {
  return `${encodedPath}${argsJson.length}:${argsJson}`;
}

/** Encodes a call the guest refused (guest side). */
export function encodeRefusedCall(path: string, code: string, bytes: number, reason: string): string {
  return `r${field(path)}${field(code)}${field(`${bytes}`)}${field(reason)}`;
}

/** Encodes one crossing's calls: `startCallBatch` and each call's encoding. */
export function encodeCallBatch(batch: CallBatch): string {
  let text = startCallBatch(batch.answer, batch.opensWait === true);
  const { requests } = batch;
  for (let index = 0; index < requests.length; index++) {
    const request = requests[index]!;
    text +=
      request.kind === "call"
        ? encodeCall(request.path, request.argsJson)
        : encodeRefusedCall(request.path, request.code, request.bytes, request.reason);
  }
  return text;
}

/** Decodes one crossing's calls (host side); `undefined` for anything malformed. Linear in the text. */
export function decodeCallBatch(text: unknown): CallBatch | undefined {
  if (typeof text !== "string") return undefined;
  const mark = text.charAt(0);
  const opening = ANSWERS_BY_OPENING_MARK.get(mark);
  const answer = opening ?? ANSWERS_BY_MARK.get(mark);
  if (answer === undefined) return undefined;
  const requests: CallRequest[] = [];
  const fields = new FieldReader(text, 1);
  while (fields.at < text.length) {
    const kind = text[fields.at++];
    const path = fields.next();
    if (path === undefined) return undefined;
    if (kind === "c") {
      const argsJson = fields.next();
      if (argsJson === undefined) return undefined;
      requests.push({ kind: "call", path, argsJson });
    } else if (kind === "r") {
      const code = fields.next();
      const bytes = Number(fields.next());
      const reason = fields.next();
      if (code === undefined || reason === undefined || !Number.isFinite(bytes)) return undefined;
      requests.push({ kind: "refused", path, code, bytes, reason });
    } else {
      return undefined;
    }
  }
  return opening === undefined ? { answer, requests } : { answer, opensWait: true, requests };
}

// ---- answers, host to guest ----

/**
 * A tool call's answer, guest-bound. `index` is the call's place among the run's requests (0 for
 * the first; `$timer` and `$budget` requests take places too, though they are not tool calls),
 * so answers that come back in a later batch find their call.
 */
export type CallEnvelope =
  | { readonly ok: true; readonly index: number; readonly value: unknown }
  | {
      readonly ok: false;
      readonly index: number;
      readonly callId: string | null;
      readonly code: string;
      readonly message: string;
      readonly details?: unknown;
    };

// An answer is one flat JSON array of pairs, a tag and a payload per call: for a success the
// call's index and its value, for a failure `-1 - index` and a CallFailure. Flat, so the guest
// parses no object and builds no envelope for a call that succeeded: this is decoded for every
// call, in an isolate whose code is mostly not yet optimized.

/** A failed call's payload on the wire. */
export interface CallFailure {
  readonly callId: string | null;
  readonly code: string;
  readonly message: string;
  readonly details?: unknown;
}

/**
 * Encodes a successful call. `valueJson` must already be JSON text; it is spliced in rather
 * than re-serialized, which keeps a large result to one serialization. No call id: the program
 * sees a call's id only on a failure (`error.callId`), and every answer is parsed in the guest.
 */
export function encodeCallSuccess(index: number, valueJson: string): string {
  return `${index},${valueJson}`;
}

/** Encodes a failed call as plain data, its message capped; the guest builds its own Error from it. */
export function encodeCallFailure(
  index: number,
  callId: string | null,
  code: string,
  message: string,
  details?: unknown,
): string {
  return `${-1 - index},${stringifyJson({ callId, code, message: capErrorText(message), details })}`;
}

/** Joins encoded envelopes into one answer (host side). */
export function encodeCallAnswers(envelopes: readonly string[]): string {
  return `[${envelopes.join(",")}]`;
}

// The tag of the clock pair a durable run's answers start with; any other string tag is skipped.
const CLOCK_TAG = "t";

/**
 * The clock pair of a durable run's answer: the host's time (ms since the epoch) when the answer
 * was made, or the journaled one in a replay. Placed first among an answer's envelopes; a guest
 * of a durable run reads `Date.now()` from the last one it received.
 */
export function encodeClockPair(nowMs: number): string {
  return `"${CLOCK_TAG}",${Number.isFinite(nowMs) ? Math.floor(nowMs) : 0}`;
}

/**
 * Reads an answer (guest side): `onValue` for each success, `onFailure` for each failure, in
 * order. Throws when the text is not JSON; entries that are not tag and payload are skipped.
 */
export function readCallAnswers(
  text: string,
  onValue: (index: number, value: unknown) => void,
  onFailure: (index: number, failure: CallFailure) => void,
  onClock?: (nowMs: number) => void,
): void {
  readAnswerList(parseJson(text) as unknown[], onValue, onFailure, onClock);
}

/** `readCallAnswers` of an answer already parsed (a replayed crossing's, from a parsed chunk). */
export function readAnswerList(
  entries: unknown[],
  onValue: (index: number, value: unknown) => void,
  onFailure: (index: number, failure: CallFailure) => void,
  onClock?: (nowMs: number) => void,
): void {
  for (let at = 0; at + 1 < entries.length; at += 2) {
    const tag = entries[at];
    if (typeof tag !== "number") {
      const nowMs = entries[at + 1];
      if (tag === CLOCK_TAG && onClock !== undefined && typeof nowMs === "number") onClock(nowMs);
      continue;
    }
    if (tag >= 0) onValue(tag, entries[at + 1]);
    else onFailure(-1 - tag, entries[at + 1] as CallFailure);
  }
}

// ---- a durable run's replay inside the isolate ----
//
// A durable run that resumes ships its journal's crossings into the isolate in chunks, and the
// guest answers the crossings its program makes from them, in the recorded order, without
// crossing. It reports what it answered (each crossing's batch, or a wait) in a replay log the
// host checks crossing by crossing (position, tool, input hash) against the journal before any
// live call runs: the host answers a log with the next chunk, or says the journal is used up
// (the run goes live) or over (it diverged). A `wait` of the replay gets `REPLAY_TICK`: the host
// only lends the guest a task boundary, so a replayed wait's answer arrives as a live one did. A wait
// whose answer lies past the guest's chunk stays held: the host answers nothing past the chunk it
// sent, and the next chunk starts with that answer.

/** The kind of a chunk entry for a `wait` (submits use the batch marks). */
export const REPLAY_WAIT_MARK = "W";

/** The mark of a batch sent ahead: its crossing's answer is never read. */
export const REPLAY_LATER_MARK = BATCH_MARKS.later;

/**
 * Characters of replay log the guest keeps before it hands the log to the host, chunk or not:
 * batch texts carry arguments, so the log is bounded on its own.
 */
export const MAX_REPLAY_LOG_CHARS = 1_048_576;

/** What the host answers a `wait` while the guest replays: nothing but the turn of a task. */
export const REPLAY_TICK = "~";

/** The first character of a replay log (a submit's text; no batch starts with it). */
const REPLAY_LOG_MARK = "v";

/** The host's answers to a replay log: a further chunk, the journal used up, or the run over. */
export const REPLAY_MORE = "c";
export const REPLAY_LIVE = "l";
export const REPLAY_OVER = "d";

/**
 * One crossing of a chunk (host side), as JSON: `[k, mark, first, count, answer]`, `answer` the
 * flat list `readAnswerList` reads (the clock pair first). `first` and `count` are -1 for a wait.
 */
export function encodeReplayEntry(
  k: number,
  mark: string,
  first: number,
  count: number,
  nowMs: number,
  envelopes: readonly string[],
): string {
  let answer = encodeClockPair(nowMs);
  for (let at = 0; at < envelopes.length; at++) answer += `,${envelopes[at]}`;
  return `[${k},"${mark}",${first},${count},[${answer}]]`;
}

/** The mark of a batch's answer kind in a replay chunk: the letter its batch starts with. */
export function replayMarkOf(answer: BatchAnswer): string {
  return BATCH_MARKS[answer];
}

/** One crossing of the replay log (guest side): a submit's batch text, or `""` for a wait. */
export function encodeReplayLogField(batchText: string): string {
  return field(batchText);
}

/**
 * Why the guest hands its replay log over: `more`, it needs the next chunk (or the journal is used
 * up); `idle`, the program waits for answers and the chunk answers other crossings first;
 * `unanswerable`, the last crossing of the log is not the one the chunk holds next.
 */
export type ReplayLogFlag = "more" | "idle" | "unanswerable";

const REPLAY_FLAGS: Readonly<Record<ReplayLogFlag, string>> = { more: ".", idle: "i", unanswerable: "x" };
const FLAGS_BY_MARK: ReadonlyMap<string, ReplayLogFlag> = new Map(
  (Object.keys(REPLAY_FLAGS) as ReplayLogFlag[]).map((flag) => [REPLAY_FLAGS[flag], flag]),
);

/** A replay log (guest side): its flag, then each crossing's `encodeReplayLogField`. */
export function encodeReplayLog(flag: ReplayLogFlag, fields: string): string {
  return `${REPLAY_LOG_MARK}${REPLAY_FLAGS[flag]}${fields}`;
}

/** Whether a submit's text is a replay log rather than a batch (host side). */
export function isReplayLog(text: unknown): text is string {
  return typeof text === "string" && text.charAt(0) === REPLAY_LOG_MARK;
}

/**
 * Decodes a replay log (host side): its flag and each crossing's batch text, or `""` for a wait;
 * undefined for anything malformed. Linear in the text.
 */
export function decodeReplayLog(
  text: string,
): { readonly flag: ReplayLogFlag; readonly crossings: string[] } | undefined {
  const flag = FLAGS_BY_MARK.get(text.charAt(1));
  if (flag === undefined) return undefined;
  const crossings: string[] = [];
  const fields = new FieldReader(text, 2);
  while (fields.at < text.length) {
    const crossing = fields.next();
    if (crossing === undefined) return undefined;
    crossings.push(crossing);
  }
  return { flag, crossings };
}

/** Decodes an answer into envelopes (tests and tools; the guest reads answers with `readCallAnswers`). */
export function decodeCallAnswers(text: string): CallEnvelope[] {
  const envelopes: CallEnvelope[] = [];
  readCallAnswers(
    text,
    (index, value) => envelopes.push({ ok: true, index, value }),
    (index, { callId, code, message, details }) =>
      envelopes.push({ ok: false, index, callId, code, message, ...(details === undefined ? {} : { details }) }),
  );
  return envelopes;
}

/** Decodes one envelope, as `encodeCallSuccess` or `encodeCallFailure` made it (tests and tools). */
export function decodeCallEnvelope(text: string): CallEnvelope {
  const [envelope] = decodeCallAnswers(`[${text}]`);
  if (envelope === undefined) throw new SyntaxError("Not a call envelope.");
  return envelope;
}

// ---- the run's limits, host to guest ----

/** The run's limits (and input) the host passes to the guest when the program starts. */
export interface GuestConfig {
  readonly maxArgumentBytes: number;
  readonly maxOutputBytes: number;
  readonly maxLogBytes: number;
  readonly maxLogLines: number;
  /** The program's `input`, parsed; absent when the run was given none. */
  readonly input?: unknown;
  /**
   * Set for a durable run: the clock at its start (ms since the epoch) and the seed of its
   * `Math.random` (four 32-bit integers), both journaled, so a replay reads the same values.
   */
  readonly durable?: GuestDeterminism | undefined;
  /** A resumed durable run's first chunk of journaled crossings (see `encodeReplayEntry`). */
  readonly replay?: unknown[] | undefined;
}

/** What makes a durable run's guest repeatable: its first clock value and its random seed. */
export interface GuestDeterminism {
  readonly nowMs: number;
  readonly seed: readonly [number, number, number, number];
}

/** Until a run starts, nothing may cross: code outside the program function gets no budget. */
export const CLOSED_GUEST_CONFIG: GuestConfig = Object.freeze({
  maxArgumentBytes: 0,
  maxOutputBytes: 0,
  maxLogBytes: 0,
  maxLogLines: 0,
});

/**
 * Encodes the run's limits (host side), with the run's input when it has one. `inputJson` must
 * already be JSON text; it is spliced in rather than re-serialized (one serialization, and the
 * guest parses the whole config once).
 */
export function encodeGuestConfig(
  config: Omit<GuestConfig, "input" | "replay">,
  inputJson?: string,
  replayJson?: string,
): string {
  const limits = stringifyJson({
    maxArgumentBytes: config.maxArgumentBytes,
    maxOutputBytes: config.maxOutputBytes,
    maxLogBytes: config.maxLogBytes,
    maxLogLines: config.maxLogLines,
    ...(config.durable === undefined ? {} : { durable: config.durable }),
  });
  const withInput = inputJson === undefined ? limits : `${limits.slice(0, -1)},"input":${inputJson}}`;
  return replayJson === undefined ? withInput : `${withInput.slice(0, -1)},"replay":${replayJson}}`;
}

/** Decodes the run's limits (guest side). */
export function decodeGuestConfig(text: string): GuestConfig {
  return parseJson(text) as GuestConfig;
}

// ---- the console, guest to host, through shared memory ----

/** Console levels the guest forwards. */
export type LogLevel = "log" | "info" | "warn" | "error" | "debug";

const LOG_LEVELS: readonly LogLevel[] = ["log", "info", "warn", "error", "debug"];

/**
 * The console crosses through a SharedArrayBuffer the host allocates for the run: the guest
 * appends each line and publishes the new end with an atomic store, and the host reads the
 * lines after the isolate has stopped, so every line written before a run ended (by return,
 * throw, timeout, CPU or memory limit, cancellation) reaches the result, at no crossing per
 * line. Layout: an Int32 committed end (in code units, from the first record), then records
 * of [level, length low 16 bits, length high 16 bits, ...UTF-16 code units].
 */
const LOG_HEADER_UNITS = 2;
const LOG_RECORD_UNITS = 3;

/**
 * Code units a run's log buffer needs: kept lines are at most `maxLogBytes` UTF-8 bytes (a
 * UTF-16 unit is never fewer bytes) and at most `maxLogLines`, plus the truncation marker.
 */
export function logBufferUnits(config: GuestConfig): number {
  const lines = Math.max(0, Math.floor(config.maxLogLines)) + 1;
  const text = Math.min(Math.max(0, Math.floor(config.maxLogBytes)), lines * (MAX_LOG_LINE_CHARS + 64));
  return LOG_HEADER_UNITS + text + lines * LOG_RECORD_UNITS + 256;
}

/** The guest's handle on a log buffer: views made once, when the buffer arrives. */
export interface LogWriter {
  readonly header: Int32Array;
  readonly units: Uint16Array;
}

/** Opens a log buffer for appending (guest side). */
export function openLogWriter(buffer: SharedArrayBuffer): LogWriter {
  return { header: new Int32ArrayCtor(buffer, 0, 1), units: new Uint16ArrayCtor(buffer) };
}

/**
 * Appends a line (guest side) if it fits in the buffer and its UTF-8 size is at most
 * `maxBytes`; returns that size, measured while the line is copied, or -1 when it was not kept.
 */
export function writeLogLine(writer: LogWriter, level: LogLevel, text: string, maxBytes: number): number {
  const { header, units } = writer;
  const start = LOG_HEADER_UNITS + atomicsLoad(header, 0);
  const end = start + LOG_RECORD_UNITS + text.length;
  if (end > units.length || text.length > maxBytes) return -1;
  let bytes = text.length;
  for (let index = 0, at = start + LOG_RECORD_UNITS; index < text.length; index++, at++) {
    const code = charCodeOf(text, index);
    units[at] = code;
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  if (bytes > maxBytes) return -1;
  units[start] = levelNumber(level);
  units[start + 1] = text.length & 0xffff;
  units[start + 2] = text.length >>> 16;
  // Published last: a reader sees a line whole or not at all.
  atomicsStore(header, 0, end - LOG_HEADER_UNITS);
  return bytes;
}

function levelNumber(level: LogLevel): number {
  switch (level) {
    case "info":
      return 1;
    case "warn":
      return 2;
    case "error":
      return 3;
    case "debug":
      return 4;
    default:
      return 0;
  }
}

/** UTF-16 code units as a string, in slices: String.fromCharCode takes its units as arguments. */
function unitsToString(units: Uint16Array): string {
  let text = "";
  for (let index = 0; index < units.length; index += 4_096)
    text += String.fromCharCode(...units.subarray(index, Math.min(index + 4_096, units.length)));
  return text;
}

/**
 * The lines committed to a log buffer (host side), in order; a damaged record ends the read.
 * `decode` turns a line's code units into a string (the host passes a faster native one).
 */
export function readLogLines(
  buffer: SharedArrayBuffer,
  decode: (units: Uint16Array) => string = unitsToString,
): { level: LogLevel; text: string }[] {
  const units = new Uint16ArrayCtor(buffer);
  if (units.length < LOG_HEADER_UNITS) return [];
  const committed = atomicsLoad(new Int32ArrayCtor(buffer, 0, 1), 0);
  const end = Math.min(LOG_HEADER_UNITS + Math.max(0, committed), units.length);
  const lines: { level: LogLevel; text: string }[] = [];
  let at = LOG_HEADER_UNITS;
  while (at + LOG_RECORD_UNITS <= end) {
    const level = LOG_LEVELS[units[at]!];
    const length = units[at + 1]! + units[at + 2]! * 0x10000;
    const from = at + LOG_RECORD_UNITS;
    if (level === undefined || from + length > end) break;
    lines.push({ level, text: decode(units.subarray(from, from + length)) });
    at = from + length;
  }
  return lines;
}

// ---- the program's end, guest to host ----

/**
 * A program's end, host-bound: its output JSON, or the error that ended it. A program that
 * returned `undefined` (no `return`) has output `null` and `returnedNothing` set.
 */
export type ProgramResult =
  | { readonly ok: true; readonly outputJson: string; readonly returnedNothing?: true }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly stack: string | null };

/** Encodes a program's end (guest side): a tag character, then the payload, never nested JSON-in-JSON. */
export function encodeProgramOutput(outputJson: string): string {
  return `o${outputJson}`;
}

/** Encodes the end of a program that returned `undefined` (guest side). */
export function encodeProgramNothing(): string {
  return "u";
}

/** Encodes the error that ended a program (guest side); message and stack are capped before they cross. */
export function encodeProgramError(code: string, message: string, stack: string | null): string {
  // Written field by field from strings: JSON.stringify of an object would call a `toJSON` a
  // program put on Object.prototype.
  const stackJson = stack === null ? "null" : stringifyJson(capErrorText(stack));
  return `e{"code":${stringifyJson(code)},"message":${stringifyJson(capErrorText(message))},"stack":${stackJson}}`;
}

/** Decodes a program's end (host side). Anything malformed is reported, never thrown; texts are capped again. */
export function decodeProgramResult(text: unknown): ProgramResult {
  if (typeof text !== "string" || text.length === 0) {
    return { ok: false, code: "INTERNAL_ERROR", message: "The program ended without a result.", stack: null };
  }
  if (text[0] === "o") return { ok: true, outputJson: text.slice(1) };
  if (text === "u") return { ok: true, outputJson: "null", returnedNothing: true };
  try {
    const parsed = parseJson(text.slice(1)) as { code?: unknown; message?: unknown; stack?: unknown };
    return {
      ok: false,
      code: typeof parsed.code === "string" ? parsed.code : "RUNTIME_ERROR",
      message: typeof parsed.message === "string" ? capErrorText(parsed.message) : "The program failed.",
      stack: typeof parsed.stack === "string" ? capErrorText(parsed.stack) : null,
    };
  } catch {
    return { ok: false, code: "INTERNAL_ERROR", message: "The program's result could not be read.", stack: null };
  }
}
