// Switchyard as an MCP server: a small fixed tool set (run_program, search_tools,
// describe_tools, optionally call_tool, and resume_run for durable runs) in front of one
// session's catalog. Every call a program makes passes the session's pipeline; `ask` decisions go
// to the requesting client by elicitation (a durable run pauses instead of denying); progress and
// cancellation follow MCP. It never lists the catalog's tools one by one.

import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema } from "../contract.js";
import { messageOf } from "../errors.js";
import { answerModelToolCall, type ModelToolName } from "../model-tools/answer-model-tool-call.js";
import { CALL_TOOL_TOOL, describeCallTool } from "../model-tools/call-tool-tool.js";
import { DESCRIBE_TOOLS_TOOL, describeDescribeTool } from "../model-tools/describe-tools-tool.js";
import { RUN_PROGRAM_TOOL, withOutputContract, withProgramInput } from "../model-tools/run-program-tool.js";
import { compileRunContract } from "../program/run-contract.js";
import { describeSearchTool, SEARCH_TOOLS_TOOL } from "../model-tools/search-tools-tool.js";
import type { Approver } from "../permissions/permission-gate.js";
import type { PersonAsker } from "../model-tools/resume-paused-run.js";
import { resolveModelDurable, type ModelDurableOptions } from "../model-tools/model-durable-runs.js";
import { describeResumeRunTool, RESUME_RUN_TOOL } from "../model-tools/resume-run-tool.js";
import type { Switchyard } from "../switchyard.js";
import {
  answerOfElicitation,
  approvalForm,
  CANNOT_ASK_REASON,
  decisionOfElicitation,
  pendingApprovalForm,
} from "./gateway-approvals.js";
import { errorResult, modelToolAnswerToToolResult, toMcpTool } from "./gateway-tools.js";
import { RunProgress } from "./run-progress.js";

export interface GatewayServerOptions {
  /**
   * Route the `ask` decisions of a run_program or call_tool request to the client that sent
   * it, by elicitation (a client that cannot be asked gets a denial). Default false: `ask`
   * follows the session's own approver.
   */
  readonly askClient?: boolean;
  /** Expose `call_tool` for single direct calls. Default false. */
  readonly enableCallTool?: boolean;
  /** Least time between two progress notifications of one run, in ms. Default 100. */
  readonly progressIntervalMs?: number;
  /** How long the user has to answer an approval form, in ms. Default 600 000 (10 min); then no. */
  readonly approvalTimeoutMs?: number;
  /** One line per event worth keeping (runs, approvals, list changes). Default: nothing. */
  readonly log?: (line: string) => void;
  /**
   * The JSON Schema every program's return value must match: run_program's description shows
   * the type, the check declares it as the program's return type, and the value is validated
   * after the run (`OUTPUT_INVALID`). The host's contract, not the client's: a client cannot
   * send a schema of its own. Throws SCHEMA_INVALID when ajv cannot compile it. Default none.
   */
  readonly outputSchema?: JsonSchema;
  /** Name and version announced to clients. Default `switchyard` 0.1.0. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /**
   * Run every run_program durably (`true` for the defaults), under an id the gateway mints, and
   * offer `resume_run`. A run whose `ask` is not answered within `askTimeoutMs` (the client
   * cannot be asked, the person dismissed the form or did not answer in time) answers PAUSED with
   * its run id and pending calls; `resume_run` asks the person by elicitation where the client
   * can be asked, and resumes. Every run, not the model's choice: a model cannot know in advance
   * that its program will meet an `ask`, and journals are the host's cost to decide. Default off.
   */
  readonly durable?: ModelDurableOptions | boolean;
}

/** A gateway server: connect `server` to any transport; `close()` detaches it from the session. */
export interface GatewayServer {
  readonly server: Server;
  /** The tools as clients list them now. */
  listTools(): Tool[];
  /** Stops following the catalog and closes the server's transport. Safe to call twice. */
  close(): Promise<void>;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const DEFAULT_APPROVAL_TIMEOUT_MS = 600_000;

const INSTRUCTIONS =
  "Switchyard runs TypeScript programs that call tools. Use run_program: its description declares the tools loaded now; " +
  "find others with search_tools or describe_tools, then call them inside one program (loops, Promise.all) and return only what you need.";

/**
 * Builds the MCP server of a session. The session stays the caller's: `close()` neither
 * closes the session nor its MCP sources. Sends `notifications/tools/list_changed` only when
 * the listed tools' text changed (the catalog may change without the listing changing).
 */
export function createGatewayServer(yard: Switchyard, options: GatewayServerOptions = {}): GatewayServer {
  const log = options.log ?? (() => {});
  const { outputSchema } = options;
  const durable = resolveModelDurable(options.durable);
  // Compiled now: a schema that does not compile is the host's mistake, found before serving.
  const outputContract = (): string =>
    outputSchema === undefined
      ? ""
      : compileRunContract({ hasInput: false, outputSchema }, yard.declarations()).outputDeclarations;
  outputContract();
  const server = new Server(options.serverInfo ?? { name: "switchyard", version: "0.1.0" }, {
    capabilities: { tools: { listChanged: true } },
    instructions: INSTRUCTIONS,
  });

  // The listing follows run_program's description (its declarations are the costly part),
  // which the session rebuilds only when the catalog or an observed output type changes.
  let listing: { readonly programTool: object; readonly tools: readonly Tool[]; readonly text: string } | undefined;
  const currentListing = (): NonNullable<typeof listing> => {
    const programTool = yard.programTool();
    if (listing?.programTool !== programTool) {
      const described = withOutputContract(withProgramInput(programTool), outputContract());
      const definitions = [described, describeSearchTool(), describeDescribeTool()];
      if (options.enableCallTool === true) definitions.push(describeCallTool());
      if (durable !== undefined) definitions.push(describeResumeRunTool());
      const tools = definitions.map(toMcpTool);
      listing = { programTool, tools, text: JSON.stringify(tools) };
    }
    return listing;
  };
  const listTools = (): Tool[] => [...currentListing().tools];

  let published = currentListing().text;
  const stopFollowing = yard.registry.onChange((snapshot) => republish(`catalog version ${snapshot.version}`));
  // Called on catalog changes and after each answered call (whose results may have given a
  // tool its first observed type).
  const republish = (reason: string): void => {
    const next = currentListing().text;
    if (next === published) {
      log(`${reason}: listed tools unchanged`);
      return;
    }
    published = next;
    log(`${reason}: listed tools changed, notifying the client`);
    // Before the handshake there is nobody to tell; the client lists tools after it anyway.
    if (server.transport !== undefined && server.getClientCapabilities() !== undefined) {
      server
        .sendToolListChanged()
        .catch((error: unknown) => log(`could not send tools/list_changed: ${messageOf(error)}`));
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));

  const offered: ModelToolName[] = [RUN_PROGRAM_TOOL, SEARCH_TOOLS_TOOL, DESCRIBE_TOOLS_TOOL];
  if (options.enableCallTool === true) offered.push(CALL_TOOL_TOOL);
  if (durable !== undefined) offered.push(RESUME_RUN_TOOL);

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const isRun = name === RUN_PROGRAM_TOOL || name === RESUME_RUN_TOOL;
    // Aborted once this request is answered or cancelled: a form still open for a run that paused
    // is withdrawn. One controller, not AbortSignal.any: Node 20 may collect an `any` signal
    // that only listeners reference, and then it never fires.
    const answered = new AbortController();
    const cancel = (): void => answered.abort();
    extra.signal.addEventListener("abort", cancel, { once: true });
    const pause: { why?: string } = {};
    const progress = isRun ? progressOf(extra) : undefined;
    let programId: string | undefined;
    // Progress follows this request's program only: its calls are told apart by program id.
    const unsubscribe = progress === undefined ? undefined : yard.trace.subscribe((event) => progress.observe(event));
    let answer: Awaited<ReturnType<typeof answerModelToolCall>>;
    try {
      answer = await answerModelToolCall(yard, {
        name,
        input: request.params.arguments ?? {},
        offered,
        signal: extra.signal,
        ...(outputSchema === undefined ? {} : { outputSchema }),
        ...(name === CALL_TOOL_TOOL ? { callId: `mcp-${randomUUID().slice(0, 8)}` } : {}),
        ...(options.askClient === true
          ? { approve: durable === undefined ? askerFor(extra) : durableAskerFor(extra, answered.signal, pause) }
          : {}),
        ...(durable === undefined ? {} : { durable }),
        ...(durable !== undefined && options.askClient === true && canElicit()
          ? { askPerson: personAskerFor(extra) }
          : {}),
        onStart: (id) => {
          programId = id;
          progress?.follow(id);
        },
      });
    } catch (error) {
      return errorResult("INTERNAL_ERROR", messageOf(error));
    } finally {
      answered.abort();
      extra.signal.removeEventListener("abort", cancel);
      unsubscribe?.();
    }
    if (answer.tool === RUN_PROGRAM_TOOL || answer.tool === RESUME_RUN_TOOL) {
      const { run } = answer;
      const summary = `${run.ok ? "ok" : `failed ${run.error?.code ?? ""}`}: ${run.stats.toolCalls} calls, ${Math.round(run.stats.wallMs)} ms`;
      log(
        `${answer.tool} ${programId ?? run.programId}${extra.signal.aborted ? " (cancelled by the client)" : ""}: ${summary}`,
      );
      // After a cancellation the SDK sends no response, and no more notifications either.
      if (!extra.signal.aborted) await progress?.finish(summary);
    } else if (answer.tool === CALL_TOOL_TOOL) {
      const { outcome } = answer;
      log(
        `call_tool ${outcome.tool} (${outcome.callId}): ${outcome.status}${outcome.status === "ok" ? "" : ` ${outcome.error.code}`}`,
      );
    }
    if (answer.tool === RUN_PROGRAM_TOOL || answer.tool === CALL_TOOL_TOOL || answer.tool === RESUME_RUN_TOOL) {
      if (currentListing().text !== published) republish("observed output types");
    }
    return modelToolAnswerToToolResult(answer, yard.registry.snapshot().version, pause.why);
  });

  const progressOf = (extra: Extra): RunProgress | undefined => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken === undefined) return undefined;
    return new RunProgress({
      ...(options.progressIntervalMs === undefined ? {} : { intervalMs: options.progressIntervalMs }),
      send: (report) =>
        extra.sendNotification({ method: "notifications/progress", params: { progressToken, ...report } }),
    });
  };

  /** Whether the client declared form elicitation (the default when it declares the capability without modes). */
  const canElicit = (): boolean => {
    const elicitation = server.getClientCapabilities()?.elicitation;
    return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  };
  const approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;

  /** Asks the client of this request by elicitation, or says it cannot be asked. Never rejects. */
  const askerFor =
    (extra: Extra): Approver =>
    async (request) => {
      // Not `server.elicitInput`: it sends the form outside this request (an HTTP client may have
      // no stream open for that) and refuses a client that declares elicitation without modes.
      if (!canElicit()) {
        log(`ask ${request.tool} (${request.callId}): denied, the client cannot be asked`);
        return { approved: false, reason: CANNOT_ASK_REASON };
      }
      try {
        const result = await extra.sendRequest(
          { method: "elicitation/create", params: approvalForm(request) },
          ElicitResultSchema,
          { timeout: approvalTimeoutMs, signal: extra.signal },
        );
        const answer = answerOfElicitation(result, request.tool);
        log(
          `ask ${request.tool} (${request.callId}): ${answer === true ? "approved" : `denied, ${typeof answer === "object" ? answer.reason : "no"}`}`,
        );
        return answer;
      } catch (error) {
        return { approved: false, reason: `approval needed and the client did not answer: ${messageOf(error)}` };
      }
    };

  /**
   * A durable run's asker: the person's yes or no by elicitation; anything else (the client
   * cannot be asked, the form dismissed or answered in another shape, no answer) is "later", so
   * the run pauses rather than denies, and `pause.why` says which. Never rejects.
   */
  const durableAskerFor =
    (extra: Extra, answered: AbortSignal, pause: { why?: string }): Approver =>
    async (request) => {
      const later = (why: string): "later" => {
        pause.why ??= why;
        log(`ask ${request.tool} (${request.callId}): run pauses, ${why}`);
        return "later";
      };
      if (!canElicit()) return later("the client cannot be asked: it did not declare elicitation");
      try {
        const result = await extra.sendRequest(
          { method: "elicitation/create", params: approvalForm(request) },
          ElicitResultSchema,
          { timeout: approvalTimeoutMs, signal: answered },
        );
        const decision = decisionOfElicitation(result, request.tool);
        if (decision === undefined) return later(`the person gave no decision (${result.action})`);
        log(`ask ${request.tool} (${request.callId}): ${decision.approved ? "approved" : "denied"}`);
        return decision.approved ? true : { approved: false, reason: decision.reason ?? "denied by a person" };
      } catch (error) {
        // Withdrawn: the run already paused (askTimeoutMs) and its answer went out.
        if (answered.aborted) return "later";
        return later(`the client did not answer: ${messageOf(error)}`);
      }
    };

  /** resume_run's question to the person about one pending call; undefined for no decision. Never rejects. */
  const personAskerFor =
    (extra: Extra): PersonAsker =>
    async (runId, request) => {
      try {
        const result = await extra.sendRequest(
          { method: "elicitation/create", params: pendingApprovalForm(runId, request) },
          ElicitResultSchema,
          { timeout: approvalTimeoutMs, signal: extra.signal },
        );
        const decision = decisionOfElicitation(result, request.tool);
        log(
          `resume_run ${runId} call ${request.position} (${request.tool}): ${decision === undefined ? `no decision (${result.action})` : decision.approved ? "approved" : "denied"}`,
        );
        return decision === undefined ? undefined : { position: request.position, ...decision };
      } catch (error) {
        log(`resume_run ${runId} call ${request.position}: the client did not answer: ${messageOf(error)}`);
        return undefined;
      }
    };

  let closed = false;
  return {
    server,
    listTools,
    close: async () => {
      if (closed) return;
      closed = true;
      stopFollowing();
      await server.close();
    },
  };
}
