// The built-in `results.read` tool: pages through a result that was spilled to disk because
// it was too large for the model's context. It reads only files the spill store wrote.

import { SwitchyardError, ToolError } from "../errors.js";
import { defineTool, type ToolDefinition } from "../registry/define-tool.js";
import type { SpillStore } from "../results/spill-store.js";

const MAX_SLICE_BYTES = 16 * 1024;

/**
 * Creates `results.read` over `store`, for direct callers and providers' hosted programs (the
 * two whose results are spilled). A Switchyard session registers it itself.
 */
export function createReadResultTool(store: SpillStore): ToolDefinition {
  return defineTool({
    name: "results.read",
    description:
      "Read part of a large tool result that was saved to disk instead of being shown in full. Pass the handle from the result's preview and a byte offset; read on from offset + length until done is true.",
    source: "builtin",
    effect: "read",
    // Sandboxed programs get results whole; only direct calls and hosted programs' calls are spilled.
    callers: ["direct", "hosted-program"],
    // A spilled file is written after redaction (or deliberately without it, for a tool that
    // opted out): it holds exactly what the model may see, so its pages are not redacted again.
    redaction: false,
    // A slice is at most 16 KB of text, but JSON escaping can grow it up to six-fold; a
    // slice must never be spilled again.
    maxDirectResultBytes: 8 * MAX_SLICE_BYTES,
    inputSchema: {
      type: "object",
      properties: {
        handle: { type: "string", description: "The handle from the spilled result's preview, e.g. result-…" },
        offset: { type: "integer", minimum: 0, default: 0, description: "Byte offset to start reading at." },
        length: {
          type: "integer",
          minimum: 1,
          maximum: MAX_SLICE_BYTES,
          default: 8192,
          description: "Number of bytes to read.",
        },
      },
      required: ["handle"],
      additionalProperties: false,
    },
    execute: async (input: { handle: string; offset?: number; length?: number }) => {
      const slice = await store.read(input.handle, input.offset ?? 0, input.length ?? 8192);
      if (slice === undefined) {
        throw new ToolError(
          `No spilled result has the handle "${input.handle}"; use the handle from a result preview.`,
          { code: "RESULT_NOT_FOUND" },
        );
      }
      return slice;
    },
  });
}

/**
 * `tools` with `results.read` added for direct callers, unless they already have one. A bare tool
 * named `results` would make `tools.results` both a tool and the namespace of the one added here:
 * refused with what to do, rather than the registry's collision, which names no cause.
 */
export function withResultReader(
  tools: readonly ToolDefinition[],
  spill: SpillStore | undefined,
): readonly ToolDefinition[] {
  if (spill === undefined || tools.some((tool) => tool.name === "results.read")) return tools;
  if (tools.some((tool) => tool.name === "results"))
    throw new SwitchyardError(
      "TOOL_NAME_COLLISION",
      "A tool is named `results`, the namespace of `results.read`, which the session adds to page through spilled results: rename the tool, give it a namespace (`x.results`), or turn spilling off with `results: { spill: false }`.",
    );
  return [...tools, createReadResultTool(spill)];
}
