// Loads tools from a user's module for the CLI and config files. A module may export its
// tools as the default export or as `tools`: an array of tools, or a function (sync or
// async) returning one. Anything else is a configuration error naming the module.

import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SwitchyardError } from "../errors.js";
import { toToolDefinition, type ToolDefinition, type ToolSpec } from "../registry/define-tool.js";
import { describeModuleLoadProblem } from "./module-load-problem.js";

const TSX_LOADER = "tsx";
const TYPESCRIPT_FILE = /\.(ts|mts|cts|tsx)$/;

/** Imports `specifier` (a path, resolved against `cwd`) and returns its tools, checked by `defineTool`. */
export async function loadToolModule(specifier: string, cwd: string = process.cwd()): Promise<ToolDefinition[]> {
  // A file that exists is a path (`my-tools.ts` as much as `./my-tools.ts`); else a package name.
  const path = resolve(cwd, specifier);
  const isPath = specifier.startsWith(".") || isAbsolute(specifier) || existsSync(path);
  if (isPath && !existsSync(path)) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `The tool module "${specifier}" does not exist (looked for ${path}); check the path.`,
      { specifier, path },
    );
  }
  const url = isPath ? pathToFileURL(path).href : specifier;
  let module: Record<string, unknown>;
  try {
    module = await importModule(url, isPath && TYPESCRIPT_FILE.test(path));
  } catch (error) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `Could not load the tool module "${specifier}": ${describeModuleLoadProblem(error, cwd)}`,
      { specifier },
    );
  }
  let exported = module["tools"] ?? module["default"];
  if (typeof exported === "function") exported = await (exported as () => unknown)();
  if (!Array.isArray(exported)) {
    throw new SwitchyardError(
      "CONFIG_INVALID",
      `The tool module "${specifier}" must export its tools as \`tools\` or as the default export: an array, or a function returning one.`,
    );
  }
  return exported.map((tool: ToolSpec) => toToolDefinition(tool));
}

let typeScriptLoader: Promise<unknown> | undefined;

/**
 * Imports `url`; a TypeScript file that plain Node cannot load (the compiled `switchyard`
 * command starts without tsx, to start fast) is loaded again after registering tsx's loader once.
 */
async function importModule(url: string, typeScript: boolean): Promise<Record<string, unknown>> {
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!typeScript || (error as { code?: unknown } | null)?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
  }
  // tsx's main entry is what `node --import tsx` loads: its ESM and CommonJS hooks both (a .ts file
  // in a folder without "type": "module" is CommonJS to it). It has no declarations, hence the variable.
  typeScriptLoader ??= import(TSX_LOADER);
  await typeScriptLoader;
  // Node keeps the failed import of `url` in its cache: the retry asks for the module under a new URL.
  return (await import(`${url}?typescript`)) as Record<string, unknown>;
}
