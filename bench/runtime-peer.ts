// The peer a user would otherwise pick in Node, @utcp/code-mode (installed by hand, see PEER_INSTALL:
// its required isolated-vm peer would make the repo's own install fail on Node 24, where the
// lock's isolated-vm 5 cannot build), driven on bench/runtime.ts's workloads: its tools
// registered through @utcp/direct-call, its programs in its own dialect (tool calls are
// synchronous functions: `bench.noop({})`). Its UTCP client writes a console line on the host
// for every call; runs are timed with that line muted, or formatted into a discarding stream.

import { Console } from "node:console";
import { Writable } from "node:stream";

/** The bench tools, as plain functions; both sides register the same ones. */
export interface PeerTools {
  readonly noop: () => Promise<unknown> | unknown;
  readonly slow: () => Promise<unknown>;
  readonly big: () => Promise<unknown> | unknown;
}

/** Where the peer's per-call host console lines go while a run is timed. */
export type PeerConsole = "muted" | "sink";

export interface PeerHarness {
  /** Runs `source` with `callToolChain`, checks its result, and returns the wall time in ms. */
  time(source: string, expected: unknown, console?: PeerConsole): Promise<number>;
}

interface CodeModeClient {
  registerManual(template: Record<string, unknown>): Promise<{ success: boolean; errors: string[] }>;
  callToolChain(code: string, timeout?: number, memoryLimit?: number): Promise<{ result: unknown; logs: string[] }>;
}

const MANUAL = "switchyardBenchManual";

/** Installs the peer beside the repo's isolated-vm without saving it (its peer range names isolated-vm 6). */
export const PEER_INSTALL =
  "npm install --no-save --legacy-peer-deps @utcp/code-mode@1.2.12 @utcp/direct-call@1.0.12 @utcp/sdk@1.1.2";

/**
 * A code-mode client with the bench tools registered as manual `bench`, or the reason it is
 * not available (it is not a dependency of the repository: PEER_INSTALL adds it).
 */
export async function createPeerHarness(tools: PeerTools): Promise<PeerHarness | string> {
  let codeMode: { CodeModeUtcpClient: { create(): Promise<CodeModeClient> } };
  let directCall: { addFunctionToUtcpDirectCall(name: string, fn: (...args: unknown[]) => unknown): void };
  try {
    // Names in variables: the packages are not dependencies, so the type checker must not look for them.
    const codeModePackage = "@utcp/code-mode";
    const directCallPackage = "@utcp/direct-call";
    codeMode = (await import(codeModePackage)) as typeof codeMode;
    directCall = (await import(directCallPackage)) as typeof directCall;
  } catch (error) {
    return `@utcp/code-mode is not installed (${(error as Error).message.split("\n")[0]}); add it with: ${PEER_INSTALL}`;
  }
  const tool = (name: string, callable: string) => ({
    name,
    description: `bench ${name}`,
    inputs: { type: "object" },
    outputs: { type: "object" },
    tags: [],
    tool_call_template: { call_template_type: "direct-call", callable_name: callable },
  });
  return await quietly(async () => {
    directCall.addFunctionToUtcpDirectCall("switchyardBenchNoop", async () => tools.noop());
    directCall.addFunctionToUtcpDirectCall("switchyardBenchSlow", () => tools.slow());
    directCall.addFunctionToUtcpDirectCall("switchyardBenchBig", async () => tools.big());
    directCall.addFunctionToUtcpDirectCall(MANUAL, async () => ({
      utcp_version: "1.0.1",
      manual_version: "1.0.0",
      tools: [
        tool("noop", "switchyardBenchNoop"),
        tool("slow", "switchyardBenchSlow"),
        tool("big", "switchyardBenchBig"),
      ],
    }));
    const client = await codeMode.CodeModeUtcpClient.create();
    const registered = await client.registerManual({
      name: "bench",
      call_template_type: "direct-call",
      callable_name: MANUAL,
    });
    if (!registered.success) return `@utcp/code-mode refused the bench manual: ${registered.errors.join("; ")}`;
    return {
      time: async (source, expected, where = "muted") => {
        const started = performance.now();
        const { result, logs } = await (where === "muted"
          ? quietly(() => client.callToolChain(source))
          : intoSink(() => client.callToolChain(source)));
        const elapsed = performance.now() - started;
        if (result !== expected) {
          throw new Error(`peer program returned ${JSON.stringify(result)}, expected ${expected}: ${logs.join(" | ")}`);
        }
        return elapsed;
      },
    };
  });
}

/** Runs `work` with the host's console silenced (the peer's client logs every call). */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  return withConsole({ log: () => {}, info: () => {}, warn: () => {}, error: () => {} }, work);
}

/** Runs `work` with the host's console formatting into a stream that discards what it gets. */
async function intoSink<T>(work: () => Promise<T>): Promise<T> {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  return withConsole(new Console({ stdout: sink, stderr: sink }), work);
}

type ConsoleMethods = Pick<Console, "log" | "info" | "warn" | "error">;

async function withConsole<T>(replacement: ConsoleMethods, work: () => Promise<T>): Promise<T> {
  const saved: ConsoleMethods = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  Object.assign(console, {
    log: replacement.log.bind(replacement),
    info: replacement.info.bind(replacement),
    warn: replacement.warn.bind(replacement),
    error: replacement.error.bind(replacement),
  });
  try {
    return await work();
  } finally {
    Object.assign(console, saved);
  }
}
