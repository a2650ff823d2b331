// `switchyard runs --redis` when Redis freezes after the command connected (SIGSTOP, a real
// redis-server): the command gives up within seconds with one FLEET_UNAVAILABLE line instead of
// leaving the person at a frozen prompt. In process, so the freeze lands between the connection
// and the store's first command: the session the command would start is where Redis is frozen.

import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import type { ResumeOptions } from "../../src/execute-program.js";
import { registerRunsCommands, type WithSession } from "../../src/cli/runs-commands.js";
import type { Switchyard } from "../../src/switchyard.js";
import { startRedis, type TestRedis } from "../helpers/redis-server.js";

let server: TestRedis | undefined;
afterEach(async () => {
  if (server === undefined) return;
  try {
    process.kill(server.pid, "SIGCONT");
  } catch {
    // Already gone.
  }
  await server.stop();
  server = undefined;
});

describe("switchyard runs --redis, Redis frozen mid-command", () => {
  it("gives up on `runs resume` within seconds with FLEET_UNAVAILABLE instead of waiting for Redis", async () => {
    const redis = await startRedis();
    server = redis;
    // The session starts once the store is open: Redis freezes there, before the store reads the run.
    const withSession: WithSession = async (_flags, _tuning, work) => {
      process.kill(redis.pid, "SIGSTOP");
      const yard = {
        resume: (id: string, { store }: ResumeOptions) => store!.read(id).then(() => ({ ok: true }) as RunResult),
      };
      await work(yard as unknown as Switchyard);
    };
    const program = new Command().exitOverride();
    registerRunsCommands(program, withSession);
    const started = performance.now();
    const refused = await program
      .parseAsync(["runs", "resume", "frozen-run", "--redis", redis.url], { from: "user" })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({
      code: "FLEET_UNAVAILABLE",
      message: expect.stringMatching(/^Redis at redis:\/\/127\.0\.0\.1:\d+ stopped answering during the command/),
    });
    expect(performance.now() - started).toBeLessThan(9_000);
  }, 20_000);
});
