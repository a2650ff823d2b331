// Step 3 of the pipeline (numbered in execute-tool-call.ts): decides allow / ask / deny for a
// call whose input is already validated. The first matching rule wins, then the configured
// default. `ask` waits for an approver; with none configured (or one that throws), the answer
// is no. The gate never runs a tool.

import type { CallerKind } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import type { ToolDefinition } from "../registry/define-tool.js";

export type PermissionDecision = "allow" | "ask" | "deny";

/** What a rule predicate and an approver see about a call. */
export interface PermissionRequest {
  readonly tool: string;
  readonly input: unknown;
  readonly caller: CallerKind;
  readonly programId: string | undefined;
  readonly callId: string;
  readonly effect: ToolDefinition["effect"];
  /** The reason of the rule that asked, if any. */
  readonly reason: string | undefined;
}

/** One permission rule; rules are tried in order and the first that matches decides. */
export interface PermissionRule {
  /** Globs over full tool names; `*` matches any characters (`orders.*`, `*`, `shell.run`). */
  readonly tools: string | readonly string[];
  readonly decision: PermissionDecision;
  /** Optional extra condition on the validated input. A predicate that throws does not match. */
  readonly when?: (input: unknown, request: PermissionRequest) => boolean;
  /** Shown to the approver, and to the model when the rule denies. */
  readonly reason?: string;
}

/**
 * The approver's answer: a boolean, or a decision with a reason the model will see. `"later"`
 * defers it: a durable run pauses with the call pending (`yard.resume` brings the decision);
 * any other run takes it as no.
 */
export type ApprovalAnswer = boolean | "later" | { readonly approved: boolean; readonly reason?: string };

export interface PermissionOptions {
  readonly rules?: readonly PermissionRule[];
  /** Decision when no rule matches. Default `allow`: tools are registered on purpose. */
  readonly default?: PermissionDecision;
  /** Answers `ask` decisions; may be called for several calls at once. A run may bring its own (`RunOptions.approve`). */
  readonly approve?: Approver;
  /** Approves a whole program once before it runs, given its source and the tools it names. */
  readonly approveProgram?: (source: string, toolNames: readonly string[]) => Promise<ApprovalAnswer> | ApprovalAnswer;
}

/** Answers one `ask` decision; may be called for several calls at once. A throw means no. */
export type Approver = (request: PermissionRequest) => Promise<ApprovalAnswer> | ApprovalAnswer;

/** The gate's verdict. */
export type PermissionVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

const DECISIONS: readonly PermissionDecision[] = ["allow", "ask", "deny"];
const ALLOWED: PermissionVerdict = Object.freeze({ allowed: true });

/** Applies permission rules; construct once per session. Throws `OPTION_INVALID` for a bad rule. */
export class PermissionGate {
  readonly #rules: readonly {
    rule: PermissionRule;
    patterns: readonly RegExp[];
    verdict: { readonly decision: PermissionDecision; readonly reason: string | undefined };
  }[];
  readonly #default: PermissionDecision;
  // Shared by every call no rule matches: deciding allocates nothing on the hot path.
  readonly #defaultDecision: { readonly decision: PermissionDecision; readonly reason: undefined };
  readonly #approve: PermissionOptions["approve"];
  readonly #approveProgram: PermissionOptions["approveProgram"];

  constructor(options: PermissionOptions = {}) {
    this.#default = options.default ?? "allow";
    this.#defaultDecision = Object.freeze({ decision: this.#default, reason: undefined });
    if (!DECISIONS.includes(this.#default)) {
      throw new SwitchyardError("OPTION_INVALID", `permissions.default must be one of ${DECISIONS.join(", ")}.`);
    }
    if (options.rules !== undefined && !Array.isArray(options.rules))
      throw new SwitchyardError("OPTION_INVALID", "permissions.rules must be a list of rules.");
    this.#rules = (options.rules ?? []).map((rule, index) => {
      if (!DECISIONS.includes(rule?.decision)) {
        throw new SwitchyardError(
          "OPTION_INVALID",
          `permissions.rules[${index}].decision must be one of ${DECISIONS.join(", ")}.`,
        );
      }
      const globs: readonly unknown[] = typeof rule.tools === "string" ? [rule.tools] : rule.tools;
      // Plain JavaScript (or a config file) may give anything; `tool` for `tools` is the usual slip.
      if (!Array.isArray(globs) || !globs.every((glob) => typeof glob === "string")) {
        const slip = Object.hasOwn(rule, "tool") ? ' (the rule has "tool": the key is "tools")' : "";
        throw new SwitchyardError(
          "OPTION_INVALID",
          `permissions.rules[${index}].tools must be a tool name glob or a list of them, e.g. "orders.*"${slip}.`,
        );
      }
      if (globs.length === 0)
        throw new SwitchyardError("OPTION_INVALID", `permissions.rules[${index}].tools is empty.`);
      return {
        rule,
        patterns: globs.map(globToRegExp),
        verdict: Object.freeze({ decision: rule.decision, reason: rule.reason }),
      };
    });
    this.#approve = options.approve;
    this.#approveProgram = options.approveProgram;
  }

  /** The session's approver, if one is configured (a durable run asks it before pausing). */
  get approver(): Approver | undefined {
    return this.#approve;
  }

  /** Whether programs are shown to an approver before they run. */
  get approvesPrograms(): boolean {
    return this.#approveProgram !== undefined;
  }

  /**
   * Shows a whole program and the tools it names to `approveProgram`, once, before it runs.
   * Allowed when no program approver is configured. Never rejects.
   */
  async checkProgram(source: string, toolNames: readonly string[]): Promise<PermissionVerdict> {
    if (this.#approveProgram === undefined) return { allowed: true };
    try {
      return interpretAnswer(await this.#approveProgram(source, toolNames), "the program was not approved");
    } catch {
      return { allowed: false, reason: "the program needs approval and the approver failed" };
    }
  }

  /**
   * True when every call to `tool` is denied whatever its input: the first rule naming the tool
   * denies without a predicate (or none names it and the default is deny). Such tools are not
   * offered to models at all.
   */
  alwaysDenies(tool: string): boolean {
    for (const { rule, patterns } of this.#rules) {
      if (!patterns.some((pattern) => pattern.test(tool))) continue;
      if (rule.when !== undefined) return false;
      return rule.decision === "deny";
    }
    return this.#default === "deny";
  }

  /** The first matching rule's decision (and reason), or the default. */
  decide(request: Omit<PermissionRequest, "reason">): {
    readonly decision: PermissionDecision;
    readonly reason?: string | undefined;
  } {
    for (const { rule, patterns, verdict } of this.#rules) {
      if (!patterns.some((pattern) => pattern.test(request.tool))) continue;
      if (rule.when !== undefined && !safePredicate(rule.when, request.input, { ...request, reason: rule.reason }))
        continue;
      return verdict;
    }
    return this.#defaultDecision;
  }

  /**
   * Decides and, for `ask`, waits for the approver. `preapproved` names tools whose `ask` is
   * already answered (by an approved program that named them); `deny` still denies. `approver`
   * answers instead of the session's (a run's own). Never rejects.
   */
  async check(
    request: Omit<PermissionRequest, "reason">,
    preapproved?: ReadonlySet<string>,
    approver?: Approver,
  ): Promise<PermissionVerdict> {
    const now = this.checkNow(request, preapproved, approver);
    return "allowed" in now ? now : await this.askApprover(now, approver);
  }

  /**
   * Decides synchronously (the hot path): the verdict when no approver has to be asked (allow,
   * deny, preapproved, or `ask` with no approver configured), else the request to put to
   * `askApprover`, carrying the asking rule's reason. Rules and predicates run once per call.
   */
  checkNow(
    request: Omit<PermissionRequest, "reason">,
    preapproved?: ReadonlySet<string>,
    approver?: Approver,
  ): PermissionVerdict | PermissionRequest {
    const { decision, reason } = this.decide(request);
    if (decision === "allow") return ALLOWED;
    if (decision === "ask" && preapproved?.has(request.tool) === true) return ALLOWED;
    if (decision === "deny") return { allowed: false, reason: reason ?? `calls to ${request.tool} are not permitted` };
    if ((approver ?? this.#approve) === undefined) {
      return { allowed: false, reason: `${request.tool} needs approval and no approver is available` };
    }
    return { ...request, reason };
  }

  /**
   * Puts an `ask` decision (from `checkNow`) to `approver`, else to the session's approver.
   * Never rejects: a failing approver means no.
   */
  async askApprover(request: PermissionRequest, approver?: Approver): Promise<PermissionVerdict> {
    const approve = approver ?? this.#approve;
    if (approve === undefined)
      return { allowed: false, reason: `${request.tool} needs approval and no approver is available` };
    try {
      const answer = await approve(request);
      return interpretAnswer(answer, `${request.tool} was not approved`);
    } catch {
      return { allowed: false, reason: `${request.tool} needs approval and the approver failed` };
    }
  }
}

/** Turns an approver's answer into a verdict; anything but a clear yes is a no. */
export function interpretAnswer(answer: ApprovalAnswer, defaultReason: string): PermissionVerdict {
  if (answer === true) return { allowed: true };
  if (typeof answer === "object" && answer !== null && answer.approved === true) return { allowed: true };
  const reason =
    typeof answer === "object" && answer !== null && typeof answer.reason === "string" ? answer.reason : defaultReason;
  return { allowed: false, reason };
}

function safePredicate(
  predicate: NonNullable<PermissionRule["when"]>,
  input: unknown,
  request: PermissionRequest,
): boolean {
  try {
    return predicate(input, request) === true;
  } catch {
    return false;
  }
}

/** A tool-name glob as an anchored RegExp: `*` matches any characters, nothing else is special. */
export function globToRegExp(glob: string): RegExp {
  const pattern = glob
    .split("*")
    .map((part) => part.replace(/[\\^$+?.()|[\]{}]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${pattern}$`);
}
