// Switchyard as an MCP server: a small fixed tool set (run_program, search_tools,
// describe_tools, optionally call_tool) in front of one session's catalog. Every call a program
// makes passes the session's pipeline; `ask` decisions go to the requesting client by
// elicitation; progress and cancellation follow MCP. It never lists the catalog's tools one
// by one: the client model reaches them through programs.

import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { SEARCH_TOOLS_TOOL, RUN_PROGRAM_TOOL } from "../program-tool.js";
import type { RunResult } from "../contract.js";
import { ToolError, messageOf } from "../errors.js";
import { closestToolNames } from "../registry/tool-registry.js";
import type { Switchyard } from "../switchyard.js";
import {
  answerOfElicitation,
  approvalForm,
  CANNOT_ASK_REASON,
  type ApprovalAsker,
  type GatewayApprovals,
} from "./gateway-approvals.js";
import {
  CALL_TOOL_TOOL,
  DESCRIBE_TOOLS_TOOL,
  MAX_DESCRIBED_TOOLS,
  describeAnswerToToolResult,
  describeCallTool,
  describeDescribeTool,
  errorResult,
  inputErrorResult,
  outcomeToToolResult,
  runResultToToolResult,
  searchAnswerToToolResult,
  toMcpTool,
} from "./gateway-tools.js";
import { RunProgress } from "./run-progress.js";

export interface GatewayServerOptions {
  /**
   * Where `ask` decisions are routed. The session must have been built with
   * `approve: approvals.approve`; without it, `ask` follows the session's own approver.
   */
  readonly approvals?: GatewayApprovals;
  /** Expose `call_tool` for single direct calls. Default false. */
  readonly enableCallTool?: boolean;
  /** Least time between two progress notifications of one run, in ms. Default 100. */
  readonly progressIntervalMs?: number;
  /** How long the user has to answer an approval form, in ms. Default 600 000 (10 min); then no. */
  readonly approvalTimeoutMs?: number;
  /** One line per event worth keeping (runs, approvals, list changes). Default: nothing. */
  readonly log?: (line: string) => void;
  /** Name and version announced to clients. Default `switchyard` 0.1.0. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
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
  const server = new Server(options.serverInfo ?? { name: "switchyard", version: "0.1.0" }, {
    capabilities: { tools: { listChanged: true } },
    instructions: INSTRUCTIONS,
  });

  // The listing is a function of the catalog version (run_program's declarations are the
  // costly part), so it is built once per version, not per tools/list request.
  let listing: { readonly version: number; readonly tools: readonly Tool[]; readonly text: string } | undefined;
  const currentListing = (): NonNullable<typeof listing> => {
    const version = yard.registry.version;
    if (listing?.version !== version) {
      const definitions = [yard.programTool(), yard.searchTool(), describeDescribeTool()];
      if (options.enableCallTool === true) definitions.push(describeCallTool());
      const tools = definitions.map(toMcpTool);
      listing = { version, tools, text: JSON.stringify(tools) };
    }
    return listing;
  };
  const listTools = (): Tool[] => [...currentListing().tools];

  let published = currentListing().text;
  const stopFollowing = yard.registry.onChange((snapshot) => {
    const next = currentListing().text;
    if (next === published) {
      log(`catalog version ${snapshot.version}: listed tools unchanged`);
      return;
    }
    published = next;
    log(`catalog version ${snapshot.version}: listed tools changed, notifying the client`);
    // Before the handshake there is nobody to tell; the client lists tools after it anyway.
    if (server.transport !== undefined && server.getClientCapabilities() !== undefined) {
      server
        .sendToolListChanged()
        .catch((error: unknown) => log(`could not send tools/list_changed: ${messageOf(error)}`));
    }
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case RUN_PROGRAM_TOOL:
        return runProgram(args, extra);
      case SEARCH_TOOLS_TOOL:
        return searchTools(args);
      case DESCRIBE_TOOLS_TOOL:
        return describeTools(args);
      case CALL_TOOL_TOOL:
        if (options.enableCallTool === true) return callTool(args, extra);
        break;
    }
    const names = currentListing().tools.map((tool) => tool.name);
    return inputErrorResult(
      `No tool named "${String(request.params.name).slice(0, 200)}" here; the tools are ${names.join(", ")}.`,
    );
  });

  /** Asks the client of this request by elicitation, or says it cannot be asked. */
  const askerFor =
    (extra: Extra): ApprovalAsker =>
    async (request) => {
      const elicitation = server.getClientCapabilities()?.elicitation;
      // Form elicitation is the default when a client declares the capability without modes.
      if (elicitation === undefined || (elicitation.form === undefined && elicitation.url !== undefined)) {
        log(`ask ${request.tool} (${request.callId}): denied, the client cannot be asked`);
        return { approved: false, reason: CANNOT_ASK_REASON };
      }
      const result = await extra.sendRequest(
        { method: "elicitation/create", params: approvalForm(request) },
        ElicitResultSchema,
        {
          timeout: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
          signal: extra.signal,
        },
      );
      const answer = answerOfElicitation(result, request.tool);
      log(
        `ask ${request.tool} (${request.callId}): ${answer === true ? "approved" : `denied, ${typeof answer === "object" ? answer.reason : "no"}`}`,
      );
      return answer;
    };

  const runProgram = async (args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> => {
    const code = args["code"];
    if (typeof code !== "string")
      return inputErrorResult("run_program needs { code: string }, the TypeScript program.");
    const progressToken = extra._meta?.progressToken;
    const progress =
      progressToken === undefined
        ? undefined
        : new RunProgress({
            ...(options.progressIntervalMs === undefined ? {} : { intervalMs: options.progressIntervalMs }),
            send: (report) =>
              extra.sendNotification({ method: "notifications/progress", params: { progressToken, ...report } }),
          });
    let programId: string | undefined;
    let claiming = true;
    let unbind = (): void => {};
    // `yard.run` emits program-start synchronously, before its first await: the one event
    // seen while `claiming` is this request's program, even with other runs in flight.
    const unsubscribe = yard.trace.subscribe((event) => {
      if (event.type === "program-start") {
        if (!claiming || programId !== undefined) return;
        programId = event.programId;
        progress?.follow(programId);
        if (options.approvals !== undefined) unbind = options.approvals.bind(programId, askerFor(extra));
        return;
      }
      progress?.observe(event);
    });
    let result: RunResult;
    try {
      const running = yard.run(code, { signal: extra.signal });
      claiming = false;
      result = await running;
    } catch (error) {
      return errorResult("INTERNAL_ERROR", messageOf(error));
    } finally {
      claiming = false;
      unsubscribe();
      unbind();
    }
    const summary = `${result.ok ? "ok" : `failed ${result.error?.code ?? ""}`}: ${result.stats.toolCalls} calls, ${Math.round(result.stats.wallMs)} ms`;
    log(`run_program ${result.programId}${extra.signal.aborted ? " (cancelled by the client)" : ""}: ${summary}`);
    // After a cancellation the SDK sends no response, and no more notifications either.
    if (!extra.signal.aborted) await progress?.finish(summary);
    return runResultToToolResult(result, code);
  };

  const searchTools = async (args: Record<string, unknown>): Promise<CallToolResult> => {
    const { query, pattern, limit } = args;
    if (query !== undefined && typeof query !== "string")
      return inputErrorResult("search_tools: query must be a string.");
    if (pattern !== undefined && typeof pattern !== "string")
      return inputErrorResult("search_tools: pattern must be a string.");
    if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 20)) {
      return inputErrorResult("search_tools: limit must be an integer from 1 to 20.");
    }
    const text = pattern ?? query;
    if (text === undefined || text.trim() === "")
      return inputErrorResult("search_tools needs a query (words) or a pattern (a regular expression).");
    try {
      const answer = await yard.findAndLoad(text, {
        mode: pattern === undefined ? "bm25" : "regex",
        ...(limit === undefined ? {} : { limit }),
      });
      return searchAnswerToToolResult(answer, yard.registry.snapshot().version);
    } catch (error) {
      if (error instanceof ToolError) return errorResult(error.code, error.message);
      throw error;
    }
  };

  const describeTools = (args: Record<string, unknown>): CallToolResult => {
    const names = args["names"];
    if (
      !Array.isArray(names) ||
      names.length === 0 ||
      names.length > MAX_DESCRIBED_TOOLS ||
      !names.every((name) => typeof name === "string")
    ) {
      return inputErrorResult(
        `describe_tools needs { names: string[] } with 1 to ${MAX_DESCRIBED_TOOLS} full tool names.`,
      );
    }
    const snapshot = yard.registry.snapshot();
    // One `declare const tools` wrapper for all the names found.
    const described = yard.discovery.describeMany(names as string[]);
    const unknown = described.unknown.map((name) => ({
      name: name.slice(0, 200),
      closest: closestToolNames(snapshot, name),
    }));
    return describeAnswerToToolResult(
      { found: described.found, declarations: described.declarations, unknown },
      snapshot.version,
    );
  };

  const callTool = async (args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> => {
    const { name, input } = args;
    if (typeof name !== "string") return inputErrorResult("call_tool needs { name: string, input?: object }.");
    const callId = `mcp-${randomUUID().slice(0, 8)}`;
    const unbind = options.approvals?.bind(callId, askerFor(extra));
    try {
      const outcome = await yard.callTool(name, input ?? {}, { callId, signal: extra.signal });
      log(`call_tool ${name} (${callId}): ${outcome.status}${outcome.status === "ok" ? "" : ` ${outcome.error.code}`}`);
      return outcomeToToolResult(outcome, yard.registry.snapshot().version);
    } finally {
      unbind?.();
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
