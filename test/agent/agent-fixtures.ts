// Shared fixtures for the agent tests: a scripted model server per test, adapters of both
// providers pointed at it through the real SDK clients, and the orders demo as a session.

import { afterEach } from "vitest";
import { OrdersService } from "../../examples/orders/orders-service.js";
import { createOrdersTools } from "../../examples/orders/orders-tools.js";
import { createAnthropicAdapter } from "../../src/agent/anthropic-adapter.js";
import type { ModelAdapter } from "../../src/agent/model-adapter.js";
import { createOpenAIAdapter } from "../../src/agent/openai-adapter.js";
import { createOpenAIResponsesAdapter } from "../../src/agent/openai-responses-adapter.js";
import { Switchyard, type SwitchyardOptions } from "../../src/switchyard.js";
import {
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
} from "../../src/testing/index.js";

/** `openai` is Chat Completions; `openai-responses` the Responses API. */
export type ProviderKind = "anthropic" | "openai" | "openai-responses";

/** Every provider and transport combination, for `describe.each`. */
export const TRANSPORTS: readonly {
  readonly provider: ProviderKind;
  readonly stream: boolean;
  readonly label: string;
}[] = [
  { provider: "anthropic", stream: false, label: "anthropic json" },
  { provider: "anthropic", stream: true, label: "anthropic sse" },
  { provider: "openai", stream: false, label: "openai json" },
  { provider: "openai", stream: true, label: "openai sse" },
  { provider: "openai-responses", stream: false, label: "openai responses json" },
  { provider: "openai-responses", stream: true, label: "openai responses sse" },
];

const servers: ScriptedModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Starts a scripted server that is closed after the test. */
export async function startServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer(options);
  servers.push(server);
  return server;
}

/** An adapter of `provider` on the real SDK client, pointed at `server`, with retries off. */
export function adapterFor(server: ScriptedModelServer, provider: ProviderKind, stream = false): ModelAdapter {
  if (provider === "anthropic")
    return createAnthropicAdapter({
      apiKey: "test-key",
      baseURL: server.url,
      model: "claude-test",
      stream,
      maxRetries: 0,
    });
  const connection = { apiKey: "test-key", baseURL: server.openaiBaseURL, model: "gpt-test", stream, maxRetries: 0 };
  return provider === "openai" ? createOpenAIAdapter(connection) : createOpenAIResponsesAdapter(connection);
}

/** A session over the orders demo tools. */
export function ordersYard(options: Omit<SwitchyardOptions, "tools"> = {}): {
  yard: Switchyard;
  service: OrdersService;
} {
  const service = new OrdersService();
  return { yard: new Switchyard({ tools: createOrdersTools(service), ...options }), service };
}

/** The tool results of a recorded request's last message, protocol by protocol, as [id, content, isError]. */
export function lastToolResults(
  body: any,
  provider: ProviderKind,
): { id: string; content: string; isError: boolean | undefined }[] {
  if (provider === "anthropic") {
    const last = body.messages.at(-1);
    return last.content
      .filter((block: any) => block.type === "tool_result")
      .map((block: any) => ({ id: block.tool_use_id, content: block.content, isError: block.is_error }));
  }
  if (provider === "openai-responses") {
    const results = [];
    for (let index = body.input.length - 1; index >= 0 && body.input[index].type === "function_call_output"; index--) {
      const item = body.input[index];
      results.unshift({ id: item.call_id, content: item.output, isError: undefined });
    }
    return results;
  }
  const results = [];
  for (let index = body.messages.length - 1; index >= 0 && body.messages[index].role === "tool"; index--) {
    const message = body.messages[index];
    results.unshift({ id: message.tool_call_id, content: message.content, isError: undefined });
  }
  return results;
}
