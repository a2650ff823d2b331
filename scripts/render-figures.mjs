// Writes the measured figures into the docs, from the result files benches commit in
// bench/results/*.json (bench/bench-result.ts), so a figure cannot drift from its measurement.
// A figure in README.md or docs/*.md sits between markers, and only the text between them is ours:
//   <!-- figure:package.help-ms -->212 ms<!-- /figure -->
// `<name>.conditions` renders the file's date, machine, load and Node line, `<name>.notes` its notes.
// Unknown names fail.
// Usage: npm run docs:figures (rewrite the docs) | node scripts/render-figures.mjs --check (exit 1 on drift)

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const MARKER = /<!-- figure:([\w-]+)\.([\w-]+) -->([\s\S]*?)<!-- \/figure -->/g;

/** Every bench result file by bench name. */
export function loadResults(folder = `${ROOT}bench/results/`) {
  const results = {};
  for (const name of readdirSync(folder).filter((file) => file.endsWith(".json"))) {
    const result = JSON.parse(readFileSync(`${folder}${name}`, "utf8"));
    if (typeof result.bench === "string" && typeof result.figures === "object") results[result.bench] = result;
  }
  return results;
}

/** `measured 2026-12-01 on 2 cores (model), Node v20.20.2, load average 3.1-4.2[, offline]`. */
export function describeConditions(result) {
  const day = String(result.date).slice(0, 10);
  const load = result.loadAverage;
  return (
    `measured ${day} on ${result.machine.cores} cores (${result.machine.cpu}), Node ${result.node}, ` +
    `load average ${load.start}-${load.end}${result.transcribed === true ? "; transcribed, not yet written by its bench" : ""}`
  );
}

/** `markdown` with every marked figure replaced by its value; throws on a figure no result has. */
export function renderFigures(markdown, results, document = "a document") {
  return markdown.replace(MARKER, (_match, bench, key) => {
    const result = results[bench];
    if (result === undefined) throw new Error(`${document}: no bench/results file for figure ${bench}.${key}`);
    const value =
      key === "conditions"
        ? describeConditions(result)
        : key === "notes"
          ? result.notes.join(" ")
          : result.figures[key];
    if (typeof value !== "string") throw new Error(`${document}: bench/results/${bench}.json has no figure ${key}`);
    return `<!-- figure:${bench}.${key} -->${value}<!-- /figure -->`;
  });
}

/** README.md and docs/*.md, relative to the repository. */
export function documents() {
  return [
    "README.md",
    ...readdirSync(`${ROOT}docs`)
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => `docs/${name}`),
  ];
}

/** The documents whose figures differ from their result files, with the rendered text. */
export function staleDocuments(results = loadResults()) {
  const stale = [];
  for (const document of documents()) {
    const text = readFileSync(`${ROOT}${document}`, "utf8");
    const rendered = renderFigures(text, results, document);
    if (rendered !== text) stale.push({ document, rendered });
  }
  return stale;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stale = staleDocuments();
  if (process.argv.includes("--check")) {
    for (const { document } of stale)
      process.stderr.write(`${document}: a figure differs from bench/results; run npm run docs:figures\n`);
    process.exit(stale.length === 0 ? 0 : 1);
  }
  for (const { document, rendered } of stale) {
    writeFileSync(`${ROOT}${document}`, rendered);
    process.stdout.write(`${document}: figures updated\n`);
  }
}
