// What one run of a benchmark mode is and yields: the mode's identity (its place in the grid
// modes.ts describes), the options a run takes and the graded record it leaves. Apart from
// modes.ts so that a mode's runner (hosted-mode.ts) and the grid that dispatches to it share
// these types without importing each other.

import type { RequestRecord } from "./scripted-model.js";
import type { BenchModel } from "./settings.js";

/** How the model calls tools: direct turns, one program in Switchyard's sandbox, or one program the provider runs. */
export type ModeFamily = "direct" | "programmatic" | "hosted";

export type ModeId =
  | "direct"
  | "direct-grouped"
  | "direct-lean"
  | "direct-padded"
  | "direct-deferred"
  | "programmatic"
  | "programmatic-retry"
  | "programmatic-padded"
  | "programmatic-deferred"
  | "hosted";

export interface ModeInfo {
  readonly id: ModeId;
  readonly family: ModeFamily;
  /** `task`: the task's own tools; `padded`: plus the 224 SaaS tools of the search benchmark. */
  readonly catalog: "task" | "padded";
  /** `all`: every definition up front; `search`: the model searches before it can use a tool. */
  readonly loading: "all" | "search";
  /** `lean`: the task's narrower API (field selection, server-side filters) where it has one. */
  readonly api: "plain" | "lean";
  /** Direct family: one call per turn, or independent calls grouped in one turn. */
  readonly grouping?: "one" | "grouped";
  /** Programmatic family: a first program the type check refuses, then the right one. */
  readonly retry?: boolean;
  /** Column-width label for tables and the chart legend. */
  readonly label: string;
  readonly description: string;
}

export interface RunModeOptions {
  readonly model: BenchModel;
  /** Most tool calls in one grouped turn; default unlimited (the most generous baseline). */
  readonly maxCallsPerTurn?: number;
}

/** How the answer was graded. */
export interface Grade {
  /** The structured answer the policy reached equals the truth. */
  readonly answerMatches: boolean;
  /** What the task's checker found wrong with the final text (empty when right). */
  readonly checkerProblems: readonly string[];
  /** What the world's own check found (e.g. a page not written verbatim). */
  readonly worldProblems: readonly string[];
}

/** Everything one task run in one mode produced. */
export interface ModeRun {
  readonly taskId: string;
  readonly mode: ModeId;
  readonly records: readonly RequestRecord[];
  readonly answer: unknown;
  readonly truth: unknown;
  /** Graded: the answer matches, the checker accepts the final text, the world is right, the run completed. */
  readonly correct: boolean;
  readonly grade: Grade;
  /** Why the answer is wrong, or what went unexpectedly (empty for a clean run). */
  readonly problems: readonly string[];
  readonly finalText: string;
  /** Time spent in tools, sandbox and type check, in ms (no model time). */
  readonly toolWallMs: number;
  /** Real tool calls, including those made inside programs. */
  readonly toolCalls: number;
  /** Tools in the session's catalog. */
  readonly catalogTools: number;
  /** Bytes of tool results: what direct calls put into the context, or what stayed inside programs. */
  readonly toolResultBytes: number;
  /** Bytes the programs returned to the model (0 for direct modes). */
  readonly programOutputBytes: number;
}
