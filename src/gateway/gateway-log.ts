// The gateway's log: one timestamped line per event, to stderr or appended to a file. On the
// stdio transport stdout carries the protocol, so nothing here ever writes to stdout.

import { appendFileSync } from "node:fs";

/** Writes one line to the log. */
export type GatewayLog = (line: string) => void;

/**
 * A log writing to `file` (appended, created if missing) or, without one, to stderr. A write
 * that fails is dropped: logging must never break the server.
 */
export function createGatewayLog(file?: string): GatewayLog {
  return (line) => {
    const text = `${new Date().toISOString()} switchyard serve: ${line}\n`;
    try {
      if (file === undefined) process.stderr.write(text);
      else appendFileSync(file, text);
    } catch {
      // A full disk or a closed stderr must not take the protocol down with it.
    }
  };
}

/**
 * Sends `console.log/info/debug/warn/error` to the log, so a tool module that prints cannot
 * corrupt the stdio protocol. Returns the function that restores the console.
 */
export function redirectConsole(log: GatewayLog): () => void {
  const methods = ["log", "info", "debug", "warn", "error"] as const;
  const saved = methods.map((method) => [method, console[method]] as const);
  for (const method of methods) {
    console[method] = (...args: unknown[]) =>
      log(`console.${method}: ${args.map((arg) => (typeof arg === "string" ? arg : safeJson(arg))).join(" ")}`);
  }
  return () => {
    for (const [method, original] of saved) console[method] = original;
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
