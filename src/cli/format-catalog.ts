// Renders the catalog for `switchyard tools`: one row per tool, aligned columns, the first
// line of each description cut to fit. Formatting only.

import type { Switchyard } from "../switchyard.js";

/** One tool as `switchyard tools` lists it. */
export interface CatalogRow {
  /** The namespace, or "" for a bare name. */
  readonly namespace: string;
  readonly name: string;
  readonly effect: string;
  readonly source: string;
  /** The first line of the description, at most 100 characters. */
  readonly description: string;
}

const MAX_DESCRIPTION_CHARS = 100;

/** The rows of the session's current catalog, in catalog order. */
export function catalogRows(yard: Switchyard): CatalogRow[] {
  return yard.registry.snapshot().tools.map(({ definition }) => ({
    namespace: definition.namespace ?? "",
    name: definition.localName,
    effect: definition.effect,
    source: definition.source,
    description: firstLine(definition.description),
  }));
}

/** Aligned columns with a header row; ends with a newline. */
export function formatCatalog(rows: readonly CatalogRow[]): string {
  const header: CatalogRow = {
    namespace: "NAMESPACE",
    name: "NAME",
    effect: "EFFECT",
    source: "SOURCE",
    description: "DESCRIPTION",
  };
  const all = [header, ...rows];
  // Every column but the last (the description) is padded to its widest cell.
  const padded = (["namespace", "name", "effect", "source"] as const).map((key) => ({
    key,
    width: Math.max(...all.map((row) => row[key].length)),
  }));
  const lines = all.map((row) =>
    [...padded.map(({ key, width }) => row[key].padEnd(width)), row.description].join("  ").trimEnd(),
  );
  return `${lines.join("\n")}\n${rows.length} tools\n`;
}

function firstLine(text: string): string {
  const line = (text.split("\n").find((candidate) => candidate.trim() !== "") ?? "").trim();
  return line.length > MAX_DESCRIPTION_CHARS ? `${line.slice(0, MAX_DESCRIPTION_CHARS - 3)}...` : line;
}
