// Writes a timeline as one self-contained HTML file: the drawing script (browser/timeline-page.ts,
// bundled with esbuild once per process), its stylesheet and the data, all inline. A content
// security policy forbids every network request, so the page works offline and leaks nothing.

import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { TimelineData } from "../../browser/timeline-data.js";

const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

let assets: Promise<{ script: string; style: string }> | undefined;

/** The page for `data`. Rejects only if the page's own script cannot be bundled (a broken install). */
export async function renderTimelinePage(data: TimelineData): Promise<string> {
  assets ??= loadAssets().catch((error: unknown) => {
    assets = undefined;
    throw error;
  });
  const { script, style } = await assets;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(data.title)}</title>
<style>
${style}
</style>
</head>
<body>
<header><h1>${escapeHtml(data.title)}</h1><p class="meta" id="meta"></p></header>
<main id="runs"></main>
<script type="application/json" id="timeline-data">${embedJson(data)}</script>
<script>
${script.replace(/<\/script/gi, "<\\/script")}
</script>
</body>
</html>
`;
}

async function loadAssets(): Promise<{ script: string; style: string }> {
  const folder = findBrowserFolder();
  const result = await build({
    entryPoints: [join(folder, "timeline-page.ts")],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2020",
    platform: "browser",
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error("esbuild produced no timeline page script");
  return { script: file.text, style: await readFile(join(folder, "timeline-page.css"), "utf8") };
}

// Works from the TypeScript sources (src/timeline) and from the compiled package (dist/src/timeline).
function findBrowserFolder(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    const candidate = join(folder, "browser");
    if (existsSync(join(candidate, "timeline-page.ts"))) return candidate;
    folder = dirname(folder);
  }
  throw new Error("browser/timeline-page.ts not found next to the switchyard package");
}

/** JSON safe inside a script element: no `<` can close it or open a comment. */
function embedJson(data: TimelineData): string {
  return JSON.stringify(data)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Renders `data` and writes the page to `path` (created or replaced). */
export async function writeTimelinePage(path: string, data: TimelineData): Promise<void> {
  await writeFile(path, await renderTimelinePage(data));
}
