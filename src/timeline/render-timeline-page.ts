// Writes a timeline as one self-contained HTML file: the drawing script (browser/timeline-page.ts),
// its stylesheet and the data, all inline. An installed package reads the script `npm run build`
// bundled into dist/browser; a checkout running its TypeScript bundles it with esbuild once per
// process. A content security policy forbids every network request, so the page works offline
// and leaks nothing.

import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type * as Esbuild from "esbuild";
import type { TimelineData } from "../../browser/timeline-data.js";

/** Where the build writes the page's assets, relative to this module once compiled (dist/src/timeline). */
const PREBUILT_FOLDER = new URL("../../browser/", import.meta.url);
export const PREBUILT_SCRIPT = "timeline-page.iife.js";
export const STYLESHEET = "timeline-page.css";

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
  // Only compiled code has assets of the same build beside it; sources always bundle afresh.
  const prebuilt = fileURLToPath(new URL(PREBUILT_SCRIPT, PREBUILT_FOLDER));
  if (import.meta.url.endsWith(".js") && existsSync(prebuilt)) {
    const [script, style] = await Promise.all([
      readFile(prebuilt, "utf8"),
      readFile(fileURLToPath(new URL(STYLESHEET, PREBUILT_FOLDER)), "utf8"),
    ]);
    return { script, style };
  }
  const folder = findBrowserFolder();
  return { script: await bundleTimelineScript(), style: await readFile(join(folder, STYLESHEET), "utf8") };
}

/** Bundles browser/timeline-page.ts with esbuild; the build script writes the result to dist/browser. */
export async function bundleTimelineScript(): Promise<string> {
  const folder = findBrowserFolder();
  const { build } = createRequire(import.meta.url)("esbuild") as typeof Esbuild;
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
  return file.text;
}

/** The folder of the page's sources: from src/timeline, or from dist/src/timeline in a checkout. */
export function findBrowserFolder(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    const candidate = join(folder, "browser");
    if (existsSync(join(candidate, "timeline-page.ts"))) return candidate;
    folder = dirname(folder);
  }
  throw new Error(
    "Neither dist/browser/timeline-page.iife.js nor browser/timeline-page.ts was found next to the switchyard-runtime package; reinstall it, or run `npm run build` in a checkout.",
  );
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
