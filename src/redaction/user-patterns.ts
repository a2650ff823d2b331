// The session's own patterns (`redaction.patterns`): regular expressions for secrets no rule
// knows, such as an internal token format. Each runs once over each text; a named group
// `secret` narrows the replacement to that group. Patterns come from the integrator, so they
// are compiled as given; one that matches the empty string is refused.

import { SwitchyardError, messageOf } from "../errors.js";
import type { Finding } from "./keyword-rule.js";
import { checkKind } from "./known-secrets.js";

/** A pattern with the kind its replacements name (default `pattern`). */
export interface RedactionPattern {
  /** A RegExp, or its source text. */
  readonly pattern: string | RegExp;
  /** Flags for a source text (`i`, `m`, `s`, `u`); `g` and `d` are always added. */
  readonly flags?: string;
  readonly kind?: string;
}

/** A compiled pattern; see `compilePatterns`. */
export interface CompiledPattern {
  readonly regex: RegExp;
  readonly kind: string;
}

/**
 * Compiles the patterns. Throws SwitchyardError OPTION_INVALID naming the pattern for one that
 * does not compile, matches the empty string, or has a malformed kind.
 */
export function compilePatterns(patterns: readonly (string | RegExp | RedactionPattern)[]): CompiledPattern[] {
  return patterns.map((entry, index) => {
    const where = `redaction.patterns[${index}]`;
    const spec: RedactionPattern = typeof entry === "string" || entry instanceof RegExp ? { pattern: entry } : entry;
    const source = spec.pattern instanceof RegExp ? spec.pattern.source : spec.pattern;
    const given = spec.pattern instanceof RegExp ? spec.pattern.flags : (spec.flags ?? "");
    if (typeof source !== "string" || source === "") {
      throw new SwitchyardError("OPTION_INVALID", `${where}: a pattern must be a non-empty regular expression.`);
    }
    const flags = `${[...new Set(given.replace(/[gdy]/g, ""))].join("")}gd`;
    let regex: RegExp;
    try {
      regex = new RegExp(source, flags);
    } catch (error) {
      throw new SwitchyardError("OPTION_INVALID", `${where}: not a valid regular expression: ${messageOf(error)}`);
    }
    if (new RegExp(`^(?:${source})`, flags.replace("g", "")).test("")) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${where}: /${source}/ matches the empty string; it would redact between every two characters.`,
      );
    }
    return { regex, kind: spec.kind === undefined ? "pattern" : checkKind(spec.kind, where) };
  });
}

/** Appends every match of every pattern in `text` to `found` (the `secret` group's range when it has one). */
export function findPatterns(patterns: readonly CompiledPattern[], text: string, found: Finding[]): void {
  for (const { regex, kind } of patterns) {
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
      if (match[0] === "") {
        regex.lastIndex = match.index + 1;
        continue;
      }
      const range = match.indices?.groups?.["secret"] ?? match.indices?.[0];
      if (range !== undefined && range[1] > range[0]) found.push({ start: range[0], end: range[1], kind });
    }
  }
}
