// Turns an MCP `tools/call` result into the value a program receives. Structured content wins;
// a lone text block that is JSON becomes that JSON; anything else becomes typed blocks. Binary
// payloads (images, audio, blobs) are not copied into programs beyond a small size: a program
// gets their type and size, and the base64 `data` only up to MAX_INLINE_BINARY_BYTES.

import type { JsonValue } from "../../contract.js";

/** Largest binary payload, in decoded bytes, whose base64 `data` is kept in a content block. */
export const MAX_INLINE_BINARY_BYTES = 1024;

/** A content block as a program sees it. Unknown block kinds keep only their `type`. */
export type McpContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image" | "audio"; readonly mimeType: string; readonly bytes: number; readonly data?: string }
  | {
      readonly type: "resource";
      readonly uri: string;
      readonly mimeType?: string;
      readonly text?: string;
      readonly bytes?: number;
      readonly data?: string;
    }
  | {
      readonly type: "resource_link";
      readonly uri: string;
      readonly name: string;
      readonly mimeType?: string;
      readonly description?: string;
    }
  | { readonly type: string };

/** The parts of an MCP CallToolResult this module reads; kept loose, servers vary. */
export interface McpToolResultLike {
  readonly content?: readonly unknown[] | undefined;
  readonly structuredContent?: unknown;
  readonly isError?: boolean | undefined;
}

/**
 * The value of a successful result: `structuredContent` when present; else the parsed JSON of
 * a single text block when it parses; else every block mapped by `toContentBlock`.
 */
export function valueOfToolResult(result: McpToolResultLike): unknown {
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  const content = result.content ?? [];
  if (content.length === 1) {
    const only = content[0] as { type?: unknown; text?: unknown };
    if (only.type === "text" && typeof only.text === "string") {
      const parsed = parseJson(only.text);
      if (parsed !== undefined) return parsed;
    }
  }
  return content.map(toContentBlock);
}

/** The text an `isError: true` result carries, for the ToolError the caller sees. */
export function errorTextOfToolResult(result: McpToolResultLike): string {
  const texts = (result.content ?? [])
    .map((block) => block as { type?: unknown; text?: unknown })
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string);
  if (texts.length > 0) return texts.join("\n");
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return "The tool reported an error without a message.";
}

/** Maps one MCP content block to its program-side shape; see McpContentBlock. */
function toContentBlock(block: unknown): McpContentBlock {
  const raw = (typeof block === "object" && block !== null ? block : {}) as Record<string, unknown>;
  const type = typeof raw["type"] === "string" ? raw["type"] : "unknown";
  switch (type) {
    case "text":
      return { type: "text", text: String(raw["text"] ?? "") };
    case "image":
    case "audio":
      return { type, mimeType: String(raw["mimeType"] ?? "application/octet-stream"), ...binary(raw["data"]) };
    case "resource": {
      const resource = (
        typeof raw["resource"] === "object" && raw["resource"] !== null ? raw["resource"] : {}
      ) as Record<string, unknown>;
      return {
        type: "resource",
        uri: String(resource["uri"] ?? ""),
        ...(typeof resource["mimeType"] === "string" ? { mimeType: resource["mimeType"] } : {}),
        ...(typeof resource["text"] === "string" ? { text: resource["text"] } : {}),
        ...(typeof resource["blob"] === "string" ? binary(resource["blob"]) : {}),
      };
    }
    case "resource_link":
      return {
        type: "resource_link",
        uri: String(raw["uri"] ?? ""),
        name: String(raw["name"] ?? ""),
        ...(typeof raw["mimeType"] === "string" ? { mimeType: raw["mimeType"] } : {}),
        ...(typeof raw["description"] === "string" ? { description: raw["description"] } : {}),
      };
    default:
      return { type };
  }
}

function binary(data: unknown): { bytes: number; data?: string } {
  if (typeof data !== "string") return { bytes: 0 };
  const bytes = base64DecodedLength(data);
  return bytes <= MAX_INLINE_BINARY_BYTES ? { bytes, data } : { bytes };
}

function base64DecodedLength(data: string): number {
  const trimmed = data.replace(/\s+/g, "");
  const padding = trimmed.endsWith("==") ? 2 : trimmed.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((trimmed.length * 3) / 4) - padding);
}

function parseJson(text: string): JsonValue | undefined {
  const trimmed = text.trim();
  // Only objects and arrays: "42" or "true" from a text tool is more likely prose than data.
  if (!(trimmed.startsWith("{") || trimmed.startsWith("["))) return undefined;
  try {
    return JSON.parse(trimmed) as JsonValue;
  } catch {
    return undefined;
  }
}
