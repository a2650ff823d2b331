// A real HTTP server on 127.0.0.1 that plays a model: it speaks the Anthropic Messages API
// (POST /v1/messages, /v1/messages/count_tokens), OpenAI Chat Completions
// (POST /v1/chat/completions) and the OpenAI Responses API (POST /v1/responses), JSON or SSE,
// hosted code execution shapes included, answering each request with the next script entry,
// and OpenAI embeddings (POST /v1/embeddings) from an `embed` function, recording every body it
// received. For tests and demos only: no model, no network.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicError, anthropicEventStream, anthropicMessage } from "./anthropic-wire.js";
import { openAIResponse, openAIResponseEventStream } from "./openai-responses-wire.js";
import { openAICompletion, openAIError, openAIEventStream } from "./openai-wire.js";
import type { RecordedRequest, ScriptedAnswer, ScriptedProtocol, ScriptedTurn } from "./scripted-turn.js";
import type { WireContext } from "./wire-context.js";

export interface ScriptedModelServerOptions {
  /** The answers, in request order; or one function answering every request. */
  readonly script:
    | readonly ScriptedTurn[]
    | ((request: RecordedRequest, index: number) => ScriptedAnswer | Promise<ScriptedAnswer>);
  /** When set, a request must carry this key (`x-api-key` or `Authorization: Bearer`). */
  readonly apiKey?: string;
  /**
   * Answers POST /v1/embeddings: one vector per input, in order. Embedding requests do not
   * consume script entries. Without it the route answers 404.
   */
  readonly embed?: (inputs: readonly string[], model: string) => number[][] | Promise<number[][]>;
}

export interface ScriptedModelServer {
  /** `http://127.0.0.1:<port>`: the Anthropic SDK's `baseURL`. */
  readonly url: string;
  /** `<url>/v1`: the OpenAI SDK's `baseURL`. */
  readonly openaiBaseURL: string;
  /** Every request received, in order, including rejected ones. */
  readonly requests: readonly RecordedRequest[];
  /** Requests that consumed a script entry (messages and chat completions). */
  readonly turnRequests: readonly RecordedRequest[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const ROUTES: Record<string, { protocol: ScriptedProtocol; endpoint: RecordedRequest["endpoint"] }> = {
  "/v1/messages": { protocol: "anthropic", endpoint: "messages" },
  "/v1/messages/count_tokens": { protocol: "anthropic", endpoint: "count_tokens" },
  "/v1/chat/completions": { protocol: "openai", endpoint: "chat.completions" },
  "/v1/embeddings": { protocol: "openai", endpoint: "embeddings" },
  "/v1/responses": { protocol: "openai-responses", endpoint: "responses" },
};

/**
 * Starts the server on an ephemeral port. A request without a key (`x-api-key` or
 * `Authorization: Bearer`) gets 401; a request past the end of the script gets a 400
 * `invalid_request_error` saying so (400, so SDKs do not retry it).
 */
export async function startScriptedModelServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  let turnIndex = 0;
  let callCounter = 0;
  let responseCounter = 0;
  let itemCounter = 0;

  const answerOf = async (request: RecordedRequest, index: number): Promise<ScriptedAnswer> => {
    if (typeof options.script === "function") return options.script(request, index);
    const entry = options.script[index];
    if (entry === undefined) {
      return {
        error: {
          status: 400,
          message: `scripted model: the script has ${options.script.length} turns; request ${index + 1} has no answer.`,
        },
      };
    }
    return typeof entry === "function" ? entry(request) : entry;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const route = ROUTES[path];
    const raw = await readBody(req);
    // biome-ignore lint/suspicious/noExplicitAny: request bodies are recorded as sent; tests read them loosely.
    let body: any;
    try {
      body = raw === "" ? {} : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const protocol = route?.protocol ?? (path.includes("chat") ? "openai" : "anthropic");
    const sendError = (status: number, message: string, type?: string, code?: string): void =>
      sendJson(
        res,
        status,
        protocol === "anthropic" ? anthropicError(status, message, type) : openAIError(status, message, type, code),
      );

    // Decided before recording, so a rejected request is recorded with turnIndex -1.
    const routed = route !== undefined && (route.endpoint !== "embeddings" || options.embed !== undefined);
    const rejection = rejectionOf(req, path, routed, body !== undefined, options.apiKey);
    const consumes = rejection === undefined && route?.endpoint !== "count_tokens" && route?.endpoint !== "embeddings";
    const recorded: RecordedRequest = {
      protocol,
      endpoint: route?.endpoint ?? "messages",
      path,
      headers: { ...req.headers },
      body,
      stream: body?.stream === true,
      turnIndex: consumes ? turnIndex++ : -1,
    };
    requests.push(recorded);
    if (rejection !== undefined) return sendError(...rejection);
    if (route?.endpoint === "count_tokens") return sendJson(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
    if (route?.endpoint === "embeddings" && options.embed !== undefined) {
      return sendJson(res, 200, await embeddingsAnswer(body, options.embed));
    }

    const answer = await answerOf(recorded, recorded.turnIndex);
    if ("error" in answer)
      return sendError(answer.error.status, answer.error.message, answer.error.type, answer.error.code);
    if ("raw" in answer) {
      res.writeHead(answer.raw.status ?? 200, { "content-type": answer.raw.contentType ?? "application/json" });
      res.end(answer.raw.body);
      return;
    }
    if (answer.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    const context: WireContext = {
      model: typeof body.model === "string" ? body.model : "scripted-model",
      responseId: `${RESPONSE_ID_PREFIXES[protocol]}${++responseCounter}`,
      nextCallId: () => (protocol === "anthropic" ? `toolu_s${++callCounter}` : `call_s${++callCounter}`),
      requestBytes: raw.length,
      request: body,
      nextId: (prefix) => `${prefix}${++itemCounter}`,
    };
    if (recorded.stream) {
      const text =
        protocol === "openai"
          ? openAIEventStream(answer, context, body.stream_options?.include_usage === true)
          : protocol === "openai-responses"
            ? openAIResponseEventStream(answer, context)
            : anthropicEventStream(answer, context);
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      res.end(text);
      return;
    }
    sendJson(
      res,
      200,
      protocol === "openai"
        ? openAICompletion(answer, context)
        : protocol === "openai-responses"
          ? openAIResponse(answer, context)
          : anthropicMessage(answer, context),
    );
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(
          res,
          500,
          anthropicError(500, `scripted model: ${error instanceof Error ? error.message : String(error)}`),
        );
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseURL: `${url}/v1`,
    requests,
    get turnRequests() {
      return requests.filter((request) => request.turnIndex !== -1);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// The OpenAI embeddings response; `encoding_format: "base64"` (the SDK's default) packs each
// vector as little-endian float32, as the API does.
async function embeddingsAnswer(
  // biome-ignore lint/suspicious/noExplicitAny: the request body as the client sent it.
  body: any,
  embed: NonNullable<ScriptedModelServerOptions["embed"]>,
): Promise<unknown> {
  const inputs: string[] = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? "")];
  const model = typeof body.model === "string" ? body.model : "scripted-embedding";
  const vectors = await embed(inputs, model);
  const base64 = body.encoding_format === "base64";
  return {
    object: "list",
    model,
    data: vectors.map((vector, index) => ({
      object: "embedding",
      index,
      embedding: base64 ? Buffer.from(Float32Array.from(vector).buffer).toString("base64") : vector,
    })),
    usage: { prompt_tokens: inputs.join(" ").length, total_tokens: inputs.join(" ").length },
  };
}

const RESPONSE_ID_PREFIXES: Record<ScriptedProtocol, string> = {
  anthropic: "msg_s",
  openai: "chatcmpl-s",
  "openai-responses": "resp_s",
};

/** Why the server refuses a request, as [status, message]; undefined when it answers it. */
function rejectionOf(
  req: IncomingMessage,
  path: string,
  routed: boolean,
  parsed: boolean,
  apiKey: string | undefined,
): readonly [number, string] | undefined {
  if (!routed || req.method !== "POST") return [404, `scripted model: no route for ${req.method} ${path}.`];
  if (!authorized(req, apiKey))
    return [401, "scripted model: missing or wrong API key (x-api-key or Authorization: Bearer)."];
  if (!parsed) return [400, "scripted model: the body is not JSON."];
  return undefined;
}

function authorized(req: IncomingMessage, apiKey: string | undefined): boolean {
  const header = req.headers["x-api-key"];
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1];
  const given = typeof header === "string" && header !== "" ? header : bearer;
  if (given === undefined || given === "") return false;
  return apiKey === undefined || given === apiKey;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
