import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createHttpFetchTool,
  type HttpFetchResult,
  isHostAllowed,
  isNonPublicAddress,
} from "../../src/builtins/http-fetch-tool.js";
import type { ToolOutcome } from "../../src/contract.js";
import { SwitchyardError } from "../../src/errors.js";
import { Switchyard } from "../../src/switchyard.js";

let server: Server;
let port: number;
let connections = 0;
let requests: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body });
      const path = request.url ?? "/";
      if (path === "/hello") {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ hello: "world" }));
      } else if (path === "/big") {
        response.writeHead(200, { "content-type": "text/plain" }).end("z".repeat(100_000));
      } else if (path === "/image") {
        response.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]));
      } else if (path === "/hop") {
        response.writeHead(302, { location: "/hello" }).end();
      } else if (path === "/see-other") {
        response.writeHead(303, { location: "/echo" }).end();
      } else if (path === "/echo") {
        response.writeHead(200, { "content-type": "text/plain" }).end(`${request.method} ${body}`);
      } else if (path === "/away") {
        response.writeHead(302, { location: `http://localhost:${port}/hello` }).end();
      } else if (path === "/loop") {
        response.writeHead(302, { location: "/loop" }).end();
      } else if (path === "/missing") {
        response.writeHead(404, { "content-type": "text/plain" }).end("not here");
      } else {
        response.writeHead(500).end();
      }
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
  // Pooled keep-alive sockets to 127.0.0.1 may carry over; a connection to any other host
  // would be a new one and show up here.
  connections = 0;
});

function yardWith(options: Partial<Parameters<typeof createHttpFetchTool>[0]> = {}): Switchyard {
  return new Switchyard({ tools: [createHttpFetchTool({ allowHosts: ["127.0.0.1"], ...options })], typeCheck: "off" });
}

function valueOf(outcome: ToolOutcome): HttpFetchResult {
  if (outcome.status !== "ok")
    throw new Error(`expected ok, got ${outcome.status}: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.value as HttpFetchResult;
}

function errorOf(outcome: ToolOutcome): { code: string; message: string } {
  if (outcome.status === "ok") throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

describe("http.fetch", () => {
  it("fetches from an allowed host inside a program", async () => {
    const result = await yardWith().run(
      `const response = await tools.http.fetch({ url: "http://127.0.0.1:${port}/hello" }); return { status: response.status, body: JSON.parse(response.body) };`,
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({ status: 200, body: { hello: "world" } });
  });

  it("returns a 404 as a result, with lower-case headers", async () => {
    const response = valueOf(await yardWith().callTool("http.fetch", { url: `http://127.0.0.1:${port}/missing` }));
    expect(response).toMatchObject({ status: 404, body: "not here", bodyEncoding: "utf8", truncated: false });
    expect(response.headers["content-type"]).toBe("text/plain");
  });

  it("refuses another host before connecting", async () => {
    const failure = errorOf(await yardWith().callTool("http.fetch", { url: `http://localhost:${port}/hello` }));
    expect(failure.code).toBe("HOST_NOT_ALLOWED");
    expect(failure.message).toContain("127.0.0.1");
    expect(connections).toBe(0);
    expect(requests).toEqual([]);
  });

  it("refuses other protocols before connecting", async () => {
    for (const url of ["file:///etc/passwd", `ftp://127.0.0.1:${port}/`, "data:text/plain,hi"]) {
      expect(errorOf(await yardWith().callTool("http.fetch", { url })).code).toBe("PROTOCOL_NOT_ALLOWED");
    }
    expect(errorOf(await yardWith().callTool("http.fetch", { url: "not a url" })).code).toBe("URL_INVALID");
    expect(connections).toBe(0);
  });

  it("follows a redirect to an allowed host", async () => {
    const response = valueOf(await yardWith().callTool("http.fetch", { url: `http://127.0.0.1:${port}/hop` }));
    expect(response).toMatchObject({ status: 200, url: `http://127.0.0.1:${port}/hello` });
    expect(requests.map((request) => request.url)).toEqual(["/hop", "/hello"]);
  });

  it("refuses a redirect to a host that is not allowed, without following it", async () => {
    const failure = errorOf(await yardWith().callTool("http.fetch", { url: `http://127.0.0.1:${port}/away` }));
    expect(failure.code).toBe("HOST_NOT_ALLOWED");
    expect(failure.message).toMatch(/redirect/);
    expect(requests.map((request) => request.url)).toEqual(["/away"]);
  });

  it("stops after 5 redirects", async () => {
    const failure = errorOf(await yardWith().callTool("http.fetch", { url: `http://127.0.0.1:${port}/loop` }));
    expect(failure.code).toBe("TOO_MANY_REDIRECTS");
    expect(requests).toHaveLength(6);
  });

  it("caps the response body and says it was truncated", async () => {
    const response = valueOf(
      await yardWith({ maxResponseBytes: 1000 }).callTool("http.fetch", { url: `http://127.0.0.1:${port}/big` }),
    );
    expect(response.truncated).toBe(true);
    expect(response.body).toBe("z".repeat(1000));
  });

  it("returns non-text bodies as base64", async () => {
    const response = valueOf(await yardWith().callTool("http.fetch", { url: `http://127.0.0.1:${port}/image` }));
    expect(response).toMatchObject({ bodyEncoding: "base64", body: "iVBORwA=" });
  });

  it("is a read tool limited to GET and HEAD by default", async () => {
    const tool = createHttpFetchTool({ allowHosts: ["127.0.0.1"] });
    expect(tool.effect).toBe("read");
    const outcome = await yardWith().callTool("http.fetch", {
      url: `http://127.0.0.1:${port}/echo`,
      method: "POST",
      body: "x",
    });
    expect(errorOf(outcome).code).toBe("INPUT_INVALID");
    expect(connections).toBe(0);
  });

  it("becomes a write tool when other methods are enabled, and turns POST into GET on a 303", async () => {
    const tool = createHttpFetchTool({ allowHosts: ["127.0.0.1"], methods: ["GET", "POST"] });
    expect(tool.effect).toBe("write");
    expect(tool.resources?.({ url: `http://127.0.0.1:${port}/echo` })).toEqual([`http:http://127.0.0.1:${port}`]);
    const yard = new Switchyard({ tools: [tool] });
    const posted = valueOf(
      await yard.callTool("http.fetch", {
        url: `http://127.0.0.1:${port}/echo`,
        method: "POST",
        body: "payload",
        headers: { "content-type": "text/plain" },
      }),
    );
    expect(posted.body).toBe("POST payload");
    const redirected = valueOf(
      await yard.callTool("http.fetch", { url: `http://127.0.0.1:${port}/see-other`, method: "POST", body: "payload" }),
    );
    expect(redirected.body).toBe("GET ");
  });

  it("refuses transport headers such as Host", async () => {
    const outcome = await yardWith().callTool("http.fetch", {
      url: `http://127.0.0.1:${port}/hello`,
      headers: { Host: "evil.example" },
    });
    expect(errorOf(outcome).code).toBe("HEADER_NOT_ALLOWED");
    expect(connections).toBe(0);
  });

  it("reports a refused connection as HTTP_REQUEST_FAILED", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = errorOf(await yardWith().callTool("http.fetch", { url: `http://127.0.0.1:${closedPort}/` }));
    expect(failure.code).toBe("HTTP_REQUEST_FAILED");
    expect(failure.message).toMatch(/ECONNREFUSED/);
  });
});

describe("http.fetch and DNS", () => {
  /** A resolver that gives `answers` in turn (the last one repeats) and counts its calls. */
  function resolverAnswering(...answers: (readonly string[])[]): {
    resolveHost: (hostname: string) => Promise<readonly string[]>;
    calls: string[];
  } {
    const calls: string[] = [];
    return {
      calls,
      resolveHost: async (hostname) => {
        calls.push(hostname);
        return answers[Math.min(calls.length - 1, answers.length - 1)] ?? [];
      },
    };
  }

  it("connects to the address it resolved and checked, once, even if the next answer differs (DNS rebinding)", async () => {
    // A rebinding server answers the check with one address and the connection with another:
    // here the second answer is unroutable, so a second lookup would fail the call.
    const resolver = resolverAnswering(["127.0.0.1"], ["192.0.2.1"]);
    const yard = yardWith({ allowHosts: ["rebind.test"], allowPrivateAddresses: true, ...resolver, timeoutMs: 2_000 });
    const response = valueOf(await yard.callTool("http.fetch", { url: `http://rebind.test:${port}/hello` }));
    expect(response.body).toBe('{"hello":"world"}');
    expect(resolver.calls).toEqual(["rebind.test"]);
    // The original host travels in the Host header; only the socket goes to the pinned address.
    expect(requests.map((request) => request.headers.host)).toEqual([`rebind.test:${port}`]);
  });

  it("never follows a later answer to loopback: the first, checked address is the one connected to", async () => {
    const resolver = resolverAnswering(["192.0.2.10"], ["127.0.0.1"]);
    const yard = yardWith({ allowHosts: ["rebind.test"], ...resolver, timeoutMs: 300 });
    const failure = errorOf(await yard.callTool("http.fetch", { url: `http://rebind.test:${port}/hello` }));
    // The unroutable address times out: the fetch's own timer or, on a loaded machine, the call's
    // deadline of the same length first. Either way nothing connected to loopback (below).
    expect(["HTTP_TIMEOUT", "HTTP_REQUEST_FAILED", "TOOL_TIMEOUT"]).toContain(failure.code);
    expect(resolver.calls).toEqual(["rebind.test"]);
    expect(requests).toEqual([]);
    expect(connections).toBe(0);
  });

  it("refuses a granted name that resolves to a loopback or private address, before connecting", async () => {
    for (const answer of [["127.0.0.1"], ["10.1.2.3"], ["169.254.169.254"], ["203.0.113.7", "::1"]]) {
      const yard = yardWith({ allowHosts: ["api.test"], ...resolverAnswering(answer) });
      const failure = errorOf(await yard.callTool("http.fetch", { url: `http://api.test:${port}/hello` }));
      expect(failure.code, answer.join(",")).toBe("ADDRESS_NOT_ALLOWED");
    }
    expect(connections).toBe(0);
  });

  it("resolves each redirect hop again and checks it", async () => {
    const resolver = resolverAnswering(["127.0.0.1"]);
    const yard = yardWith({ allowHosts: ["rebind.test"], allowPrivateAddresses: true, ...resolver });
    const response = valueOf(await yard.callTool("http.fetch", { url: `http://rebind.test:${port}/hop` }));
    expect(response.body).toBe('{"hello":"world"}');
    expect(resolver.calls).toEqual(["rebind.test", "rebind.test"]);
  });

  it("tells public addresses from the others", () => {
    for (const address of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      // IPv4 addresses behind NAT64 (DNS64's answers), 6to4, a local NAT64 prefix, and Teredo.
      "64:ff9b::a00:1",
      "64:ff9b::127.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "2002:a00:1::1",
      "2002:7f00:1::",
      "64:ff9b:1::808:808",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "not an ip",
    ]) {
      expect(isNonPublicAddress(address), address).toBe(true);
    }
    for (const address of ["8.8.8.8", "203.0.113.7", "2606:4700:4700::1111", "64:ff9b::808:808", "2002:808:808::1"]) {
      expect(isNonPublicAddress(address), address).toBe(false);
    }
  });
});

describe("isHostAllowed", () => {
  it("matches exact hosts case-insensitively and *.suffix patterns on subdomains only", () => {
    const allow = ["api.example.com", "*.internal.test", "127.0.0.1", "[::1]"];
    expect(isHostAllowed("API.example.com", allow)).toBe(true);
    expect(isHostAllowed("api.example.com.", allow)).toBe(true);
    expect(isHostAllowed("example.com", allow)).toBe(false);
    expect(isHostAllowed("evil-api.example.com", allow)).toBe(false);
    expect(isHostAllowed("a.b.internal.test", allow)).toBe(true);
    expect(isHostAllowed("internal.test", allow)).toBe(false);
    expect(isHostAllowed("evilinternal.test", allow)).toBe(false);
    expect(isHostAllowed("[::1]", allow)).toBe(true);
    expect(isHostAllowed("127.0.0.2", allow)).toBe(false);
  });

  it("refuses an empty allowlist, a bare * and entries that are not hosts", () => {
    for (const allowHosts of [
      [],
      ["*"],
      ["http://example.com"],
      ["example.com/path"],
      ["a.*.com"],
      ["example.com:8080"],
    ]) {
      expect(() => createHttpFetchTool({ allowHosts }), JSON.stringify(allowHosts)).toThrow(SwitchyardError);
    }
  });
});
