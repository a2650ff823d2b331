// The guest side of the bridge, evaluated inside every isolate before the program: it builds
// `tools`, `console`, the timers and `isToolCallError`, removes what must not be reachable
// (WebAssembly), and serializes the program's output with its size measured here, so an
// oversized value never reaches the host.
// It captures every intrinsic it needs up front: the program may overwrite globals later.

import { createGuestTimers } from "./guest-timers.js";
import {
  BUDGET_PATH,
  CLOSED_GUEST_CONFIG,
  DESCRIBE_PATH,
  decodeCallEnvelope,
  decodeGuestConfig,
  encodeProgramError,
  encodeProgramNothing,
  encodeProgramOutput,
  type GuestConfig,
  type LogLevel,
  SEARCH_PATH,
  TIMER_PATH,
} from "./wire.js";

/** The slice of isolated-vm's Reference the guest uses. */
interface HostReference {
  apply(receiver: undefined, args: unknown[], options: { result: { promise: true; copy: true } }): Promise<unknown>;
  applyIgnored(receiver: undefined, args: unknown[]): void;
  applySync(receiver: undefined, args: unknown[]): unknown;
}

interface GuestError extends Error {
  code?: string;
  callId?: string | null;
  tool?: string;
  details?: unknown;
}

/** One console line longer than this is cut, so one huge value cannot use the whole log budget. */
const MAX_LOG_LINE_CHARS = 4_096;

const captured = {
  stringify: JSON.stringify,
  parse: JSON.parse,
  ErrorCtor: Error,
  TypeErrorCtor: TypeError,
  Proxy,
  defineProperty: Object.defineProperty,
  freeze: Object.freeze,
  create: Object.create,
  isArray: Array.isArray,
  String,
  PromiseCtor: Promise,
  reject: Promise.reject.bind(Promise),
  // Errors made by makeError: what `isToolCallError` recognises (a program cannot forge one).
  toolCallErrors: new WeakSet<object>(),
  weakSetHas: WeakSet.prototype.has,
  weakSetAdd: WeakSet.prototype.add,
  apply: Reflect.apply,
};

/**
 * Installs `tools`, `console` and the program runner; called once by the host (ahead of the
 * run, when the isolate is prepared), then deleted. The run's limits are fetched from the
 * host when the program starts.
 */
function install(callHost: HostReference, logHost: HostReference, configHost: HostReference): void {
  let config: GuestConfig = CLOSED_GUEST_CONFIG;
  const global = globalThis as Record<string, unknown>;
  // WebAssembly memory is not counted by the isolate's memory limit.
  delete global["WebAssembly"];

  let finished = false;
  let logBytes = 0;
  let logLines = 0;
  let logTruncated = false;

  const log = (level: LogLevel, args: readonly unknown[]): void => {
    if (logTruncated) return;
    let line = "";
    for (let index = 0; index < args.length && line.length <= MAX_LOG_LINE_CHARS; index++) {
      if (index > 0) line += " ";
      line += formatLogValue(args[index]);
    }
    if (line.length > MAX_LOG_LINE_CHARS) {
      line = `${line.slice(0, MAX_LOG_LINE_CHARS)}… [line cut at ${MAX_LOG_LINE_CHARS} characters]`;
    }
    const size = utf8Length(line) + 1;
    if (logLines + 1 > config.maxLogLines || logBytes + size > config.maxLogBytes) {
      logTruncated = true;
      logHost.applyIgnored(undefined, [
        "warn",
        `[switchyard: log truncated after ${logLines} lines, ${logBytes} bytes]`,
      ]);
      return;
    }
    logLines += 1;
    logBytes += size;
    logHost.applyIgnored(undefined, [level, level === "log" || level === "info" ? line : `[${level}] ${line}`]);
  };
  const consoleObject = captured.freeze({
    log: (...args: unknown[]) => log("log", args),
    info: (...args: unknown[]) => log("info", args),
    warn: (...args: unknown[]) => log("warn", args),
    error: (...args: unknown[]) => log("error", args),
    debug: (...args: unknown[]) => log("debug", args),
  });
  captured.defineProperty(global, "console", { value: consoleObject, writable: true, configurable: true });

  const callTool = (path: string, input: unknown): Promise<unknown> => {
    if (finished)
      return captured.reject(
        makeError("RUN_FINISHED", "The program has already finished; this call was not made.", null, path),
      );
    let argsJson: string;
    try {
      argsJson = serialize(
        input === undefined ? {} : input,
        config.maxArgumentBytes,
        "ARGUMENT_TOO_LARGE",
        "INPUT_INVALID",
        "argument",
      );
    } catch (error) {
      return captured.reject(toGuestError(error, path));
    }
    return callHost.apply(undefined, [path, argsJson], { result: { promise: true, copy: true } }).then((text) => {
      const envelope = decodeCallEnvelope(text as string);
      if (envelope.ok) return envelope.value;
      const error = makeError(envelope.code, envelope.message, envelope.callId, path);
      if (envelope.details !== undefined) error.details = envelope.details;
      throw error;
    });
  };

  captured.defineProperty(global, "tools", { value: createToolsProxy(callTool), writable: false, configurable: false });
  captured.defineProperty(global, "isToolCallError", {
    value: (value: unknown) => isToolCallError(value),
    writable: true,
    configurable: true,
  });

  const timers = createGuestTimers({
    requestWake: (delayMs) =>
      callHost.apply(undefined, [TIMER_PATH, captured.String(delayMs)], { result: { promise: true, copy: true } }),
    reportCallbackError: (error) => log("error", ["Uncaught in a timer callback:", error]),
  });
  for (const name of ["sleep", "setTimeout", "clearTimeout"] as const) {
    captured.defineProperty(global, name, { value: timers[name], writable: true, configurable: true });
  }

  captured.defineProperty(global, "__switchyardRun", {
    configurable: true,
    value: (main: () => Promise<unknown>): Promise<string> => {
      delete global["__switchyardRun"];
      config = decodeGuestConfig(configHost.applySync(undefined, []) as string);
      return new captured.PromiseCtor<unknown>((resolve) => resolve(main())).then(
        (value) => {
          finished = true;
          timers.close();
          if (value === undefined) return encodeProgramNothing();
          try {
            return encodeProgramOutput(
              serialize(value, config.maxOutputBytes, "OUTPUT_TOO_LARGE", "OUTPUT_NOT_SERIALIZABLE", "output"),
            );
          } catch (error) {
            const failure = toGuestError(error, undefined);
            return encodeProgramError(failure.code ?? "OUTPUT_NOT_SERIALIZABLE", failure.message, null);
          }
        },
        (error: unknown) => {
          finished = true;
          timers.close();
          try {
            return describeThrown(error);
          } catch {
            // A hostile thrown value (a getter that throws on `message`, a trapped Proxy) must
            // still end as the program's own fault, never as a sandbox failure.
            return encodeProgramError("RUNTIME_ERROR", "Uncaught exception whose message could not be read.", null);
          }
        },
      );
    },
  });
}

/** `tools.a.b(...)` at any depth: each property extends a dotted path; calling sends it. */
function createToolsProxy(callTool: (path: string, input: unknown) => Promise<unknown>): unknown {
  // Without a prototype: `tools.toString` and `tools.constructor` are tool paths like any other.
  const cache = captured.create(null) as Record<string, unknown>;
  const make = (path: string): unknown => {
    const cached = cache[path];
    if (cached !== undefined) return cached;
    const target = (() => {}) as unknown as object;
    const proxy = new captured.Proxy(target, {
      get(_target, property) {
        // `then` would make the object a thenable that `await` unwraps; symbols are not names.
        if (typeof property !== "string" || property === "then") return undefined;
        if (path === "" && property === "$search") {
          return (query: unknown, options?: unknown) =>
            callTool(SEARCH_PATH, { query, ...(isObject(options) ? options : {}) });
        }
        if (path === "" && property === "$describe") return (name: unknown) => callTool(DESCRIBE_PATH, { name });
        if (path === "" && property === "$budget") return () => callTool(BUDGET_PATH, {});
        return make(path === "" ? property : `${path}.${property}`);
      },
      apply(_target, _this, args: unknown[]) {
        if (path === "")
          return captured.reject(
            makeError(
              "TOOL_NOT_FOUND",
              "`tools` itself is not a tool; call tools.<namespace>.<name>(input).",
              null,
              "",
            ),
          );
        return callTool(path, args[0]);
      },
      set() {
        return false;
      },
      defineProperty() {
        return false;
      },
    });
    cache[path] = proxy;
    return proxy;
  };
  return make("");
}

/**
 * JSON-serializes `value` inside the isolate with its size bounded while it is built:
 * functions, symbols, BigInt and promises are refused (a promise usually means a missing
 * `await`), and serialization stops as soon as the text could exceed `maxBytes`.
 */
function serialize(value: unknown, maxBytes: number, sizeCode: string, shapeCode: string, what: string): string {
  let budget = 0;
  const replacer = function (this: unknown, key: string, current: unknown): unknown {
    budget += key.length + 4;
    switch (typeof current) {
      case "function":
        throw makeError(
          shapeCode,
          `The ${what} contains a function at "${key}"; only JSON data can cross.`,
          null,
          undefined,
        );
      case "symbol":
        throw makeError(
          shapeCode,
          `The ${what} contains a symbol at "${key}"; only JSON data can cross.`,
          null,
          undefined,
        );
      case "bigint":
        throw makeError(
          shapeCode,
          `The ${what} contains a BigInt at "${key}"; convert it to a string or number.`,
          null,
          undefined,
        );
      case "string":
        budget += current.length;
        break;
      case "object":
        if (current !== null && typeof (current as { then?: unknown }).then === "function") {
          throw makeError(
            shapeCode,
            `The ${what} contains a Promise at "${key}"; did you forget \`await\`?`,
            null,
            undefined,
          );
        }
        break;
      default:
        budget += 8;
    }
    if (budget > maxBytes)
      throw makeError(sizeCode, `The ${what} is larger than the ${maxBytes}-byte limit.`, null, undefined);
    return current;
  };
  let text: string | undefined;
  try {
    text = captured.stringify(value, replacer);
  } catch (error) {
    if (isGuestError(error)) throw error;
    // JSON.stringify's own TypeError: a cycle.
    throw makeError(shapeCode, `The ${what} is not JSON-serializable: ${messageOf(error)}`, null, undefined);
  }
  if (typeof text !== "string") text = "null";
  const bytes = utf8Length(text);
  if (bytes > maxBytes)
    throw makeError(sizeCode, `The ${what} is ${bytes} bytes, over the ${maxBytes}-byte limit.`, null, undefined);
  return text;
}

function describeThrown(error: unknown): string {
  if (error instanceof captured.ErrorCtor) {
    const guestError = error as GuestError;
    const name = safeString(guestError.name, "Error");
    const toolNote =
      typeof guestError.code === "string" && typeof guestError.tool === "string"
        ? ` (${guestError.code} from tools.${guestError.tool})`
        : "";
    return encodeProgramError(
      "RUNTIME_ERROR",
      `${name}: ${safeString(guestError.message, "")}${toolNote}`,
      safeString(guestError.stack, "") || null,
    );
  }
  return encodeProgramError("RUNTIME_ERROR", `Uncaught ${formatLogValue(error)}`, null);
}

function makeError(code: string, message: string, callId: string | null, tool: string | undefined): GuestError {
  const error = new captured.ErrorCtor(message) as GuestError;
  error.name = "ToolCallError";
  error.code = code;
  error.callId = callId;
  if (tool !== undefined) error.tool = tool;
  captured.apply(captured.weakSetAdd, captured.toolCallErrors, [error]);
  return error;
}

/** Whether `value` is an error a tool call (or `tools.$search`, `$describe`, `$budget`) rejected with. */
function isToolCallError(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (captured.apply(captured.weakSetHas, captured.toolCallErrors, [value]) as boolean)
  );
}

function toGuestError(error: unknown, tool: string | undefined): GuestError {
  if (isGuestError(error)) {
    if (tool !== undefined) error.tool = tool;
    return error;
  }
  return makeError("INTERNAL_ERROR", messageOf(error), null, tool);
}

function isGuestError(error: unknown): error is GuestError & { code: string } {
  return error instanceof captured.ErrorCtor && typeof (error as GuestError).code === "string";
}

function formatLogValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof captured.ErrorCtor)
    return `${safeString(value.name, "Error")}: ${safeString(value.message, "")}`;
  if (value === undefined || typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
    return captured.String(value);
  }
  try {
    return captured.stringify(value) ?? captured.String(value);
  } catch {
    return "[unserializable]";
  }
}

function safeString(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

function messageOf(error: unknown): string {
  return error instanceof captured.ErrorCtor ? safeString(error.message, "") : captured.String(error);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !captured.isArray(value);
}

function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

(globalThis as Record<string, unknown>)["__switchyardInstall"] = install;
