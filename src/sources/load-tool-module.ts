// Loads tools from a user's module for the CLI and config files. A module may export its
// tools as the default export or as `tools`: an array of tools, or a function (sync or
// async) returning one. Anything else is a configuration error naming the module.

import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SwitchyardError, messageOf } from "../errors.js";
import { toToolDefinition, type ToolDefinition, type ToolSpec } from "../registry/define-tool.js";

/** Imports `specifier` (a path, resolved against `cwd`) and returns its tools, checked by `defineTool`. */
export async function loadToolModule(specifier: string, cwd: string = process.cwd()): Promise<ToolDefinition[]> {
  // A file that exists is a path (`my-tools.ts` as much as `./my-tools.ts`); else a package name.
  const path = resolve(cwd, specifier);
  const url =
    specifier.startsWith(".") || isAbsolute(specifier) || existsSync(path) ? pathToFileURL(path).href : specifier;
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new SwitchyardError("CONFIG_INVALID", `Could not load the tool module "${specifier}": ${messageOf(error)}`);
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
