// Entry of a worker process (started by WorkerPool with --no-node-snapshot): runs the jobs the
// host sends in isolates of this process, each through runInIsolate as in process, with bindings
// that forward every call to the host. It holds no tool, permission or trace: the host's pipeline
// answers every call. When the host says close, or goes away, it disposes every isolate, lets the
// runs settle and exits by emptying its event loop (exiting with isolates alive can crash).

import { IsolatePool } from "./isolate-pool.js";
import type { GuestBindings } from "./sandbox-executor.js";
import { type IsolateExecution, runInIsolate } from "./isolate-run.js";
import {
  BINDING_CROSSINGS,
  type BindingName,
  crossingArguments,
  FrameBatcher,
  type HostFrame,
  type WorkerFrame,
} from "./worker-protocol.js";

interface WorkerRun {
  readonly execution: IsolateExecution;
  readonly answers: Map<number, (answer: Extract<HostFrame, { type: "answer" }>) => void>;
}

/** Serves the host over the IPC channel until it closes; see the module comment. */
export function serveWorker(): void {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error("worker-process must be started by WorkerPool (it needs an IPC channel).");
  const outbox = new FrameBatcher<WorkerFrame>((frames) => {
    if (process.connected) send(frames);
  });
  let resolveRuntime!: (source: string) => void;
  const runtimeSource = new Promise<string>((resolve) => (resolveRuntime = resolve));
  const isolates = new IsolatePool({ runtimeSource: () => runtimeSource });
  const runs = new Map<number, WorkerRun>();
  let closing: Promise<void> | undefined;

  const start = (frame: Extract<HostFrame, { type: "start" }>): void => {
    const answers: WorkerRun["answers"] = new Map();
    let nextCall = 0;
    const bindings = {} as Record<BindingName, (...args: unknown[]) => unknown>;
    for (const [name, crossing] of Object.entries(BINDING_CROSSINGS) as [BindingName, string][]) {
      if (crossing === "request") {
        bindings[name] = (...args) =>
          new Promise<string>((resolve, reject) => {
            const call = nextCall++;
            answers.set(call, (answer) =>
              answer.error === undefined ? resolve(answer.value) : reject(new Error(answer.error)),
            );
            outbox.push({ type: "request", run: frame.run, call, method: name, args: crossingArguments(args) });
          });
      } else if (crossing === "notify") {
        bindings[name] = (...args) => {
          outbox.push({ type: "notify", run: frame.run, method: name, args: crossingArguments(args) });
        };
      } else {
        const value = frame.snapshots[name] ?? "";
        bindings[name] = () => value;
      }
    }
    const execution = runInIsolate(frame.job, bindings as unknown as GuestBindings, isolates, () =>
      outbox.push({ type: "started", run: frame.run }),
    );
    runs.set(frame.run, { execution, answers });
    void execution.outcome.then((outcome) => {
      runs.delete(frame.run);
      // Frames the run sent before it ended are ahead of this one in the same outbox.
      outbox.push({ type: "end", run: frame.run, outcome });
    });
  };

  const close = (): Promise<void> => {
    closing ??= (async () => {
      const running = [...runs.values()];
      for (const run of running) run.execution.close();
      await Promise.all(running.map((run) => run.execution.outcome));
      await isolates.close();
      outbox.flush();
      // Nothing else holds the event loop: once the channel is closed, the process exits on its own.
      if (process.connected) process.disconnect();
    })();
    return closing;
  };

  process.on("message", (frames: HostFrame[]) => {
    for (const frame of frames) {
      switch (frame.type) {
        case "init":
          resolveRuntime(frame.runtimeSource);
          break;
        case "start":
          if (closing === undefined) start(frame);
          break;
        case "answer": {
          const run = runs.get(frame.run);
          const answer = run?.answers.get(frame.call);
          run?.answers.delete(frame.call);
          answer?.(frame);
          break;
        }
        case "stop":
          runs.get(frame.run)?.execution.stop();
          break;
        case "close":
          void close();
          break;
      }
    }
  });
  // The host died or closed the channel: nobody will read results any more.
  process.on("disconnect", () => void close());
  outbox.push({ type: "ready" });
}

if (process.send !== undefined && process.env["SWITCHYARD_WORKER"] === "1") serveWorker();
