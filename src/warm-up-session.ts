// What a session prepares in the background once it is created, so the first run of a process
// pays no start-up: the checker's process warmed against the session's declarations, the catalog
// indexed for scoped checks, esbuild's service, the runtime's code cache and a spare isolate, ajv,
// the redactor's keyword index and the first tools' validators. It starts after the constructor returns and runs off the event
// loop or in steps of a few ms each; what runs in the sandbox cannot use waits while they run.
// Nothing in it keeps the process alive, and once stopped it starts nothing more.

import { nextBackgroundTurn } from "./background-turn.js";
import { warmUpCompiler } from "./program/compile-program.js";
import { warmUp as warmUpChecker } from "./program/shared-type-checker.js";
import type { TypeChecker } from "./program/type-checker.js";
import type { CatalogSnapshot, RegisteredTool } from "./registry/tool-registry.js";
import { InProcessExecutor } from "./sandbox/in-process-executor.js";
import type { SandboxExecutor } from "./sandbox/sandbox-executor.js";
import { metaSchemaWarmUpSteps, validationWarmUpSteps } from "./schema/schema-validator.js";
import type { SwitchyardOptions } from "./switchyard-options.js";

/** What a session's warm-up prepares, read when it starts (after the constructor). */
export interface SessionWarmUpParts {
  /** The session's type checker; called only when the session checks programs. */
  readonly checker: () => TypeChecker;
  /** The session's catalog now. */
  readonly catalog: () => CatalogSnapshot;
  /** The declarations a program using every tool of `catalog` is checked against. */
  readonly declarations: (catalog: CatalogSnapshot) => string;
  /**
   * Takes one short step (a few ms) of indexing the catalog's tools by name for the scoped checks
   * to come, then of rendering their declarations; true once done. Absent: a session's first check
   * does it (CheckedDeclarations.warmUpStep).
   */
  readonly prepareDeclarations?: (() => boolean) | undefined;
  /** The executor the session owns (undefined for a pool it was given): it prepares an isolate. */
  readonly executor: SandboxExecutor | undefined;
  /** The isolate memory of the session's runs, in MB. */
  readonly memoryLimitMb: number;
  /** The session's redactor (undefined with `redaction: false`): its keyword index is built ahead. */
  readonly redactor?: { prepare(): void } | undefined;
  /**
   * True while runs are in the sandbox: the parts they cannot use then (esbuild, whose programs
   * are compiled already; a spare isolate, which each run has made while it compiles and is checked) wait.
   */
  readonly busy?: (() => boolean) | undefined;
}

/** A session's warm-up under way. */
export interface SessionWarmUp {
  /** Starts nothing more (the session is closing); what already runs finishes or is released by its owner. */
  stop(): void;
}

/** Catalogs up to this many tools warm the checker with their whole declarations (a few KB each). */
const MAX_DECLARED_TOOLS = 100;
/** Tools whose validators are compiled ahead (about 1-5 ms each, one tool per step). */
const MAX_VALIDATED_TOOLS = 32;
/** How often held steps look again whether the runs in the sandbox have ended. */
const HELD_RECHECK_MS = 50;
/**
 * Larger schemas (as JSON) are left to their first call: ajv's compile grows with the schema, and a
 * step must stay short whatever a tool source declares.
 */
const MAX_VALIDATED_SCHEMA_CHARS = 16 * 1024;

/**
 * Starts the session's warm-up (see the module comment) unless `options.warmUp` is false; the
 * checker's part also needs a type check (`typeCheck` not `off`) and `warmUpTypeChecker` not false.
 * Never throws, and no part of it fails a run: what a step could not prepare, the first run does.
 */
export function warmUpSession(options: SwitchyardOptions, parts: SessionWarmUpParts): SessionWarmUp {
  let stopped = false;
  const warmUp = { stop: () => void (stopped = true) };
  if (options.warmUp === false) return warmUp;
  const checks = (options.typeCheck ?? "error") !== "off";
  if (checks && options.warmUpTypeChecker !== false) {
    warmUpChecker(
      parts.checker(),
      () => ownDeclarations(parts),
      () => stopped,
    );
  }
  // Thousands of tools take tens of ms to index: in steps, ahead of the others, so a first check
  // soon after the session starts finds it done (held, like the others only checks need, while runs
  // are in the sandbox: a resumed run's replay does not check).
  const indexStep = (): void => {
    if (parts.prepareDeclarations?.() === false) steps.unshift({ run: indexStep, idle: true });
  };
  // `idle`: held while runs are in the sandbox. A resumed run replays right after the constructor:
  // ajv (its first live call validates) goes first; esbuild's start, a spare isolate and the
  // meta-schema once the runs are out of the sandbox.
  const steps: { readonly run: () => void; readonly idle?: boolean }[] = [
    ...(checks ? [{ run: indexStep, idle: true }] : []),
    { run: () => void warmUpCompiler(), idle: true },
    // Held only in process: a worker pool's spare is another process, which the next run that
    // starts while this one runs (a second at once) needs ready, and which takes no thread of ours.
    { run: () => parts.executor?.warmUp?.(parts.memoryLimitMb), idle: parts.executor instanceof InProcessExecutor },
    ...validationWarmUpSteps().map((run) => ({ run })),
    // The first result or program output a session redacts would build it (about 5 ms cold).
    { run: () => parts.redactor?.prepare() },
    // Only schemas that are not plain need the meta-schema: most runs' calls do not wait for it.
    ...metaSchemaWarmUpSteps().map((run) => ({ run, idle: true })),
    { run: () => steps.push(...validatorSteps(parts.catalog().tools).map((run) => ({ run }))) },
  ];
  // One step per turn of the event loop: a run or a call arriving meanwhile waits for one step at most.
  const next = (): void => {
    if (stopped || steps.length === 0) return;
    const index = parts.busy?.() === true ? steps.findIndex((step) => step.idle !== true) : 0;
    if (index === -1) {
      nextBackgroundTurn(next, { afterMs: HELD_RECHECK_MS });
      return;
    }
    const [step] = steps.splice(index, 1);
    try {
      step?.run();
    } catch {
      // A step that fails leaves its work to the first run, which reports any real problem.
    }
    nextBackgroundTurn(next);
  };
  // Not awaited: a process with nothing else to do exits rather than finish warming up.
  nextBackgroundTurn(next);
  return warmUp;
}

/** The whole catalog's declarations when it is small enough to check in a warm-up; else the runtime's. */
function ownDeclarations(parts: SessionWarmUpParts): string | undefined {
  const catalog = parts.catalog();
  return catalog.tools.length <= MAX_DECLARED_TOOLS ? parts.declarations(catalog) : undefined;
}

/**
 * One step per tool a program may call, the first MAX_VALIDATED_TOOLS in catalog order: its
 * validators compiled by validating a value (the answer is dropped). Not discovery's up-front set:
 * deciding whether to defer counts the catalog's tokens, which loads a tokenizer (~250 ms of CPU).
 */
function validatorSteps(catalog: readonly RegisteredTool[]): (() => void)[] {
  const tools = catalog.filter((tool) => tool.definition.callers.includes("program"));
  return tools.slice(0, MAX_VALIDATED_TOOLS).map((tool) => () => {
    const { inputSchema, outputSchema } = tool.definition;
    if (JSON.stringify(inputSchema).length <= MAX_VALIDATED_SCHEMA_CHARS) tool.validateInput({});
    if (outputSchema !== undefined && JSON.stringify(outputSchema).length <= MAX_VALIDATED_SCHEMA_CHARS) {
      tool.validateOutput?.({});
    }
  });
}
