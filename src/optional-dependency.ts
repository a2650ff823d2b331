// Packages only some features need, declared as optional peer dependencies: the provider SDKs
// (the agent adapters), the o200k tokenizer, the frameworks of the integrations, the local
// embedding runtime, and BullMQ with its Redis client (the fleet). Loading one that is not installed fails with a
// SwitchyardError naming the package and the install command, never with Node's bare
// "Cannot find package". Nothing here loads a package before a feature asks for it.

import { createRequire } from "node:module";
import { SwitchyardError } from "./errors.js";

/** Node 22 and later run the current framework majors (AI SDK 7, openai 7); Node 20 the ones before. */
const NODE_22_OR_LATER = Number(process.versions.node.split(".")[0]) >= 22;

/**
 * The optional packages, with the version range package.json declares as its peer range (a
 * test keeps them equal) and what needs them.
 */
export const OPTIONAL_DEPENDENCIES = {
  "@anthropic-ai/sdk": {
    range: "^1.14.0",
    install: "npm install @anthropic-ai/sdk@1",
    neededBy: "The Anthropic adapter (createAnthropicAdapter)",
  },
  openai: {
    range: "^6.49.0 || ^7.59.0",
    install: NODE_22_OR_LATER ? "npm install openai@7" : "npm install openai@6",
    neededBy:
      "The OpenAI adapters and embedder (createOpenAIAdapter, createOpenAIResponsesAdapter, createOpenAIEmbedder)",
  },
  "gpt-tokenizer": {
    range: "^4.0.0",
    install: "npm install gpt-tokenizer@4",
    neededBy: "Exact o200k token counts (countTokens)",
  },
  ai: {
    // AI SDK 7 declares Node >= 22; 6 is the major for Node 20. Both are tested (ai-sdk.test.ts).
    range: "^6.0.325 || ^7.0.173",
    install: NODE_22_OR_LATER ? "npm install ai@7" : "npm install ai@6",
    neededBy: "switchyard-runtime/ai-sdk",
  },
  "@openai/agents": {
    // 0.15 and later need openai 7, which needs Node 22: 0.14 is the line for Node 20, 0.20 the current one.
    range: "^0.14.3 || ^0.20.0",
    install: NODE_22_OR_LATER ? "npm install @openai/agents@0.20" : "npm install @openai/agents@0.14",
    neededBy: "switchyard-runtime/openai-agents",
  },
  "@langchain/core": {
    range: "^1.4.0",
    install: "npm install @langchain/core@1",
    neededBy: "switchyard-runtime/langchain",
  },
  bullmq: {
    range: "^6.7.0",
    install: "npm install bullmq@6 ioredis@5",
    neededBy: "switchyard-runtime/fleet (switchyard worker, switchyard batch)",
  },
  ioredis: {
    // The Redis client BullMQ 6 is tested with; the fleet's rate limiter and batch records use it too.
    range: "^5.11.1",
    install: "npm install bullmq@6 ioredis@5",
    neededBy: "switchyard-runtime/fleet (switchyard worker, switchyard batch)",
  },
  "@huggingface/transformers": {
    range: "^4.3.1",
    install: "npm install @huggingface/transformers@4",
    neededBy: "The local embedder (createTransformersEmbedder)",
  },
} as const;

/** The name of an optional peer dependency. */
export type OptionalDependency = keyof typeof OPTIONAL_DEPENDENCIES;

const require = createRequire(import.meta.url);

/** The error for a missing optional package: what needs it and the command that installs it. */
export function missingDependencyError(name: OptionalDependency, cause?: unknown): SwitchyardError {
  const { install, neededBy } = OPTIONAL_DEPENDENCIES[name];
  const error = new SwitchyardError(
    "OPTIONAL_DEPENDENCY_MISSING",
    `${neededBy} needs the package "${name}", which is not installed. Install it with: ${install}`,
    { package: name, install },
  );
  if (cause !== undefined) error.cause = cause;
  return error;
}

/**
 * Whether `name` resolves from this package, without loading it. A package that resolves but
 * exports no CommonJS entry still counts as installed.
 */
export function isInstalled(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch (error) {
    return !isNotFound(error, name);
  }
}

/** Throws OPTIONAL_DEPENDENCY_MISSING unless `name` is installed; loads nothing. */
export function assertInstalled(name: OptionalDependency): void {
  if (!isInstalled(name)) throw missingDependencyError(name);
}

/**
 * Loads `name` synchronously through `require` (its CommonJS entry). Returns undefined when
 * it is not installed; any other failure (a broken install) is thrown as is.
 */
export function requireIfInstalled<T>(name: OptionalDependency): T | undefined {
  try {
    return require(name) as T;
  } catch (error) {
    if (isNotFound(error, name)) return undefined;
    throw error;
  }
}

/**
 * Imports `name` (its ES module entry). Rejects with OPTIONAL_DEPENDENCY_MISSING when it is
 * not installed; any other failure is rethrown as is.
 */
export async function importOptional<T>(name: OptionalDependency): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    if (isNotFound(error, name)) throw missingDependencyError(name, error);
    throw error;
  }
}

/**
 * Runs `load` (an `import()` of `name` or of one of its subpaths, written out so bundlers see it)
 * and turns "not installed" into OPTIONAL_DEPENDENCY_MISSING; any other failure is rethrown as is.
 */
export async function importOptionalWith<T>(name: OptionalDependency, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isNotFound(error, name)) throw missingDependencyError(name, error);
    throw error;
  }
}

/**
 * Node's not-found errors for `name` itself (not for a file the package failed to find inside),
 * and a bundler's "Could not resolve" for it (vitest and vite resolve imports before Node does).
 */
function isNotFound(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = String((error as { message?: unknown } | null)?.message);
  const names = message.includes(`'${name}'`) || message.includes(`"${name}"`);
  if (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") return names;
  return names && /could not resolve|cannot find (package|module)/i.test(message);
}
