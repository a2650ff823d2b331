// Durable runs started by a model (through the gateway, the agent loop or a framework tool): the
// surface, never the model, names each run, with an id it mints (its prefix and 128 random bits),
// and resumes only ids of that form. A model cannot pick a journal: an id it did not get from a
// paused run of this surface is refused before any store is touched.

import { randomBytes } from "node:crypto";
import type { RunJournal } from "../durable/run-journal.js";
import { SwitchyardError } from "../errors.js";

/** How a model-facing surface runs programs durably (`durable` of the gateway, `runAgent`, the code-mode tools). */
export interface ModelDurableOptions {
  /** Where the journals live. Default: `defaultRunJournal()` (`$SWITCHYARD_RUNS_DIR`, else `.switchyard/runs`). */
  readonly store?: RunJournal | undefined;
  /**
   * Prefix of the run ids this surface mints and accepts in `resume_run`: 1-40 letters, digits,
   * `_` or `-`, starting with a letter or digit. Default `run`. Give tenants sharing a store
   * different prefixes so none can name another's runs.
   */
  readonly idPrefix?: string | undefined;
  /** How long an `ask` may wait before the run pauses, in ms (`DurableOptions.askTimeoutMs`; default 30 000). */
  readonly askTimeoutMs?: number | undefined;
  /** How long a journal is kept, in ms (`DurableOptions.retentionMs`; default 7 days). */
  readonly retentionMs?: number | undefined;
  /**
   * Take approvals sent in `resume_run`'s `decisions`. Those come from whoever calls the tool: a
   * person confirming the call in their client, or the model on its own, approving the very calls
   * a rule wanted a person for. Default false: `resume_run` may deny; an approval is refused
   * (`PERMISSION_DENIED`) and must come from a person (elicitation, `switchyard runs approve`,
   * the host's `yard.resume`).
   */
  readonly modelApprovals?: boolean | undefined;
}

const DEFAULT_PREFIX = "run";
const PREFIX = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;
const RANDOM_HEX_CHARS = 32;

/** The options with `true` read as `{}`; throws `OPTION_INVALID` for a prefix that is not one. */
export function resolveModelDurable(
  durable: ModelDurableOptions | boolean | undefined,
): ModelDurableOptions | undefined {
  if (durable === undefined || durable === false) return undefined;
  const options = durable === true ? {} : durable;
  const prefix = options.idPrefix ?? DEFAULT_PREFIX;
  if (typeof prefix !== "string" || !PREFIX.test(prefix))
    throw new SwitchyardError(
      "OPTION_INVALID",
      `durable.idPrefix must be 1-40 letters, digits, '_' or '-', starting with a letter or digit; got ${JSON.stringify(String(prefix).slice(0, 60))}.`,
    );
  return options;
}

/** A fresh run id of the surface: `<prefix>-<32 hex digits>` (128 random bits, unguessable). */
export function mintRunId(options: ModelDurableOptions): string {
  return `${options.idPrefix ?? DEFAULT_PREFIX}-${randomBytes(RANDOM_HEX_CHARS / 2).toString("hex")}`;
}

/** Whether `id` has the form of an id this surface mints (says nothing of whether the run exists). */
export function isMintedRunId(options: ModelDurableOptions, id: string): boolean {
  const prefix = `${options.idPrefix ?? DEFAULT_PREFIX}-`;
  return (
    id.length === prefix.length + RANDOM_HEX_CHARS &&
    id.startsWith(prefix) &&
    /^[0-9a-f]+$/.test(id.slice(prefix.length))
  );
}
