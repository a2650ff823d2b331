// Build step after tsc: writes the scripts that are bundled from TypeScript at run time in a
// checkout, so an installed package never bundles anything: the guest runtime
// (dist/runtime/guest-runtime.iife.js) and the timeline page's script and stylesheet
// (dist/browser/). Uses the compiled bundlers, so their options live in one place each.

import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleGuestRuntime } from "../dist/src/sandbox/guest-runtime-source.js";
import {
  bundleTimelineScript,
  findBrowserFolder,
  PREBUILT_SCRIPT,
  STYLESHEET,
} from "../dist/src/timeline/render-timeline-page.js";

const dist = (path) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url));
await mkdir(dist("runtime"), { recursive: true });
await mkdir(dist("browser"), { recursive: true });
await writeFile(dist("runtime/guest-runtime.iife.js"), await bundleGuestRuntime());
await writeFile(dist(`browser/${PREBUILT_SCRIPT}`), await bundleTimelineScript());
await copyFile(join(findBrowserFolder(), STYLESHEET), dist(`browser/${STYLESHEET}`));
process.stdout.write(
  `prebuilt: dist/runtime/guest-runtime.iife.js, dist/browser/${PREBUILT_SCRIPT}, dist/browser/${STYLESHEET}\n`,
);
