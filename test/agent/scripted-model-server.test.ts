import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../../src/testing/index.js";

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("startScriptedModelServer", () => {
  it("accepts x-api-key and Authorization: Bearer, and refuses a request with neither", async () => {
    server = await startScriptedModelServer({
      script: [{ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] }],
    });
    expect((await post("/v1/messages", { model: "m" }, { "x-api-key": "k" })).status).toBe(200);
    expect((await post("/v1/chat/completions", { model: "m" }, { authorization: "Bearer k" })).status).toBe(200);
    const refused = await post("/v1/messages", { model: "m" });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    expect(server.requests.map((request) => request.turnIndex)).toEqual([0, 1, -1]);
    expect(server.turnRequests.map((request) => request.turnIndex)).toEqual([0, 1]);
  });

  it("answers past the end of the script with a 400 that says so, in the protocol's error shape", async () => {
    server = await startScriptedModelServer({ script: [] });
    const response = await post("/v1/chat/completions", { model: "m" }, { authorization: "Bearer k" });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { type: "invalid_request_error", message: expect.stringContaining("has no answer") },
    });
  });

  it("counts tokens without consuming the script, and replays a raw payload verbatim", async () => {
    server = await startScriptedModelServer({ script: [{ raw: { status: 200, body: '{"recorded":true}' } }] });
    const counted = await post("/v1/messages/count_tokens", { model: "m", messages: [] }, { "x-api-key": "k" });
    expect(await counted.json()).toEqual({ input_tokens: expect.any(Number) });
    expect(await (await post("/v1/messages", { model: "m" }, { "x-api-key": "k" })).text()).toBe('{"recorded":true}');
    expect(server.requests.map((request) => [request.endpoint, request.turnIndex])).toEqual([
      ["count_tokens", -1],
      ["messages", 0],
    ]);
  });

  it("streams Anthropic SSE events in order when stream is true", async () => {
    server = await startScriptedModelServer({
      script: [
        {
          content: [
            { type: "text", text: "hello" },
            { type: "tool_use", id: "t1", name: "f", input: { a: 1 } },
          ],
        },
      ],
    });
    const text = await (await post("/v1/messages", { model: "m", stream: true }, { "x-api-key": "k" })).text();
    const events = [...text.matchAll(/^event: (\S+)$/gm)].map((match) => match[1]);
    expect(events).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(text).toContain('"stop_reason":"tool_use"');
  });
});
