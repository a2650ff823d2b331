// The shapes of a session's options, checked before any part of the session reads them. The
// TypeScript types say the same, but a caller in plain JavaScript (or one that builds options from
// an environment) may pass anything: `permissions: null` or `redaction: { secrets: "s3cret" }`
// made a part throw a TypeError. Each part still checks its own values (ranges, names, patterns);
// this says only "an object", "a list", so the part never meets a value it cannot even read.

import { SwitchyardError } from "./errors.js";
import type { SwitchyardOptions } from "./switchyard-options.js";

type Kind = "object" | "list" | "text" | "false";

interface Shape {
  /** The option's path, as its message names it. */
  readonly path: readonly string[];
  readonly kinds: readonly Kind[];
  /** For a list: what each item must be. */
  readonly items?: readonly Kind[];
}

const SHAPES: readonly Shape[] = [
  { path: ["tools"], kinds: ["list"], items: ["object"] },
  { path: ["limits"], kinds: ["object"] },
  { path: ["permissions"], kinds: ["object"] },
  { path: ["scheduler"], kinds: ["object"] },
  { path: ["scheduler", "rateLimits"], kinds: ["list"], items: ["object"] },
  { path: ["results"], kinds: ["object"] },
  { path: ["discovery"], kinds: ["object"] },
  { path: ["redaction"], kinds: ["object", "false"] },
  { path: ["redaction", "secrets"], kinds: ["list"], items: ["text", "object"] },
  { path: ["redaction", "patterns"], kinds: ["list"], items: ["text", "object"] },
  { path: ["telemetry"], kinds: ["object", "false"] },
  { path: ["runQueue"], kinds: ["object"] },
  { path: ["observedTypes"], kinds: ["object", "false"] },
  { path: ["runJournal"], kinds: ["object"] },
  { path: ["typeChecker"], kinds: ["object"] },
];

const KIND_TEXT: Record<Kind, string> = { object: "an object", list: "a list", text: "a string", false: "false" };

function isKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "list":
      return Array.isArray(value);
    case "text":
      return typeof value === "string";
    case "false":
      return value === false;
  }
}

function described(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return String(value);
  return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
}

function expected(kinds: readonly Kind[]): string {
  return kinds.map((kind) => KIND_TEXT[kind]).join(" or ");
}

/**
 * Returns `options` once every option present has the shape its part reads (an object, a list of
 * objects...); throws SwitchyardError OPTION_INVALID naming the first that does not.
 */
export function checkOptionShapes(options: SwitchyardOptions): SwitchyardOptions {
  if (!isKind(options, "object")) throw invalid("The session's options", ["object"], options);
  for (const shape of SHAPES) {
    let value: unknown = options;
    for (const key of shape.path) value = isKind(value, "object") ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined) continue;
    const name = shape.path.join(".");
    if (!shape.kinds.some((kind) => isKind(value, kind))) throw invalid(name, shape.kinds, value);
    const { items } = shape;
    if (items === undefined || !Array.isArray(value)) continue;
    const index = value.findIndex((item) => !items.some((kind) => isKind(item, kind)));
    if (index >= 0) throw invalid(`${name}[${index}]`, items, value[index]);
  }
  return options;
}

function invalid(name: string, kinds: readonly Kind[], value: unknown): SwitchyardError {
  return new SwitchyardError("OPTION_INVALID", `${name} must be ${expected(kinds)}; it is ${described(value)}.`);
}
