// Anthropic's prompt cache, simulated over the request bodies of one run exactly where the
// adapter put its breakpoints (`cache_control` on blocks). The prompt is read as blocks in
// the provider's order (tools, system, messages); a request reads the longest prefix an
// earlier request wrote, found at one of its breakpoints or up to 20 blocks before one;
// every breakpoint whose prefix reaches the model's minimum is written; whatever follows
// the last breakpoint is plain input. Each run starts with a cold cache, and all its
// requests fall inside the 5-minute lifetime.

import { createHash } from "node:crypto";
import type { AnthropicRequestBody } from "../../src/agent/anthropic-adapter.js";

/** How one request's input tokens are billed. */
export interface CacheSplit {
  /** Input tokens billed at the base price (after the last breakpoint, or nothing was cacheable). */
  readonly uncached: number;
  /** Input tokens written to the cache. */
  readonly written: number;
  /** Input tokens read from the cache. */
  readonly read: number;
}

/** Tokens of a body's first `blocks` blocks (the prompt prefix they form), hidden tool prompt included. */
export type PrefixCounter = (body: AnthropicRequestBody, blocks: number) => number;

/** How many blocks before a breakpoint the provider looks for an earlier cache entry. */
export const CACHE_LOOKBACK_BLOCKS = 20;

/**
 * Splits each request's input into uncached, written and read tokens; see the module
 * comment. `inputTokens[i]` is request i's whole input as counted elsewhere: the split
 * always adds up to it. `countPrefix` is called only at breakpoints and cache hits, and
 * its answers are kept by prefix, so a prefix shared by many requests is counted once.
 */
export function simulatePromptCache(
  bodies: readonly AnthropicRequestBody[],
  inputTokens: readonly number[],
  minCacheableTokens: number,
  countPrefix: PrefixCounter,
): CacheSplit[] {
  const written = new Set<string>();
  const tokensOfPrefix = new Map<string, number>();
  return bodies.map((body, index) => {
    const total = inputTokens[index] ?? 0;
    const blocks = promptBlocks(body);
    const hashes = prefixHashes(blocks);
    const count = (position: number): number => {
      const hash = hashes[position]!;
      let tokens = tokensOfPrefix.get(hash);
      if (tokens === undefined) {
        tokens = position === blocks.length ? total : countPrefix(body, position);
        tokensOfPrefix.set(hash, tokens);
      }
      return Math.min(tokens, total);
    };
    // Breakpoints as prefix lengths: a marked block ends the prefix that includes it.
    const breakpoints = blocks.flatMap((block, position) => (block.marked ? [position + 1] : []));
    let readAt = 0;
    for (const breakpoint of breakpoints) {
      for (let position = breakpoint; position >= Math.max(1, breakpoint - CACHE_LOOKBACK_BLOCKS); position--) {
        if (position > readAt && written.has(hashes[position]!)) {
          readAt = position;
          break;
        }
      }
    }
    const read = readAt === 0 ? 0 : count(readAt);
    let writtenUpTo = read;
    for (const breakpoint of breakpoints) {
      const tokens = count(breakpoint);
      if (tokens < minCacheableTokens) continue;
      written.add(hashes[breakpoint]!);
      writtenUpTo = Math.max(writtenUpTo, tokens);
    }
    const write = writtenUpTo - read;
    return { uncached: total - read - write, written: write, read };
  });
}

/** One block of the prompt, in the provider's order, with its identity for prefix matching. */
interface PromptBlock {
  /** The block as the model reads it: kind, role and content, without cache markers. */
  readonly key: string;
  readonly marked: boolean;
}

/** The blocks of a body in prompt order: each tool, each system block, each message's content blocks. */
export function promptBlocks(body: AnthropicRequestBody): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const add = (kind: string, value: unknown): void => {
    const marked = typeof value === "object" && value !== null && "cache_control" in value;
    blocks.push({ key: `${kind}:${JSON.stringify(value, withoutCacheControl)}`, marked });
  };
  for (const tool of body.tools ?? []) add("tool", tool);
  for (const block of body.system ?? []) add("system", block);
  body.messages.forEach((message, index) => {
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    // The message index is part of the key: two equal blocks in different messages are different prefixes.
    for (const block of content) add(`${message.role}#${index}`, block);
  });
  return blocks;
}

/**
 * The first `blocks` blocks of `body` as a body of their own (tools, then system, then
 * messages, the last one cut after its block), for counting a prefix's tokens.
 */
export function truncateBody(body: AnthropicRequestBody, blocks: number): AnthropicRequestBody {
  let left = blocks;
  const take = <T>(items: readonly T[]): T[] => {
    const taken = items.slice(0, Math.max(0, left));
    left -= taken.length;
    return taken;
  };
  const tools = take(body.tools ?? []);
  const system = take(body.system ?? []);
  const messages: AnthropicRequestBody["messages"] = [];
  // A cut body keeps only the parts it reaches: an empty `system` would add tokens the prefix does not have.
  for (const message of body.messages) {
    if (left <= 0) break;
    const content =
      typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
    messages.push({ ...message, content: take(content) } as (typeof messages)[number]);
  }
  const { tools: _tools, system: _system, ...rest } = body;
  return {
    ...rest,
    ...(tools.length === 0 ? {} : { tools }),
    ...(system.length === 0 ? {} : { system }),
    messages,
  };
}

function prefixHashes(blocks: readonly PromptBlock[]): string[] {
  const hashes = [""];
  for (const block of blocks) hashes.push(createHash("sha1").update(hashes.at(-1)!).update(block.key).digest("hex"));
  return hashes;
}

function withoutCacheControl(key: string, value: unknown): unknown {
  return key === "cache_control" ? undefined : value;
}
