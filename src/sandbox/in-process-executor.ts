// The default sandbox executor (`workers: 0`): isolates live in the session's own process, on
// isolated-vm's threads, with one spare prepared ahead per memory limit in use. A native crash in
// isolated-vm takes the whole process down with it; WorkerPool is the executor that contains one.

import { IsolatePool } from "./isolate-pool.js";
import { type IsolateExecution, runInIsolate } from "./isolate-run.js";
import type { GuestBindings, SandboxExecution, SandboxExecutor, SandboxJob } from "./sandbox-executor.js";

/** Runs jobs in isolates of this process; see the module comment. */
export class InProcessExecutor implements SandboxExecutor {
  // No spare is made when a run takes one: its run announces the next (`prepareNext`), see there.
  readonly #isolates = new IsolatePool({ spareOnTake: false });
  readonly #running = new Set<IsolateExecution>();

  execute(job: SandboxJob, bindings: GuestBindings, onStarted?: () => void): SandboxExecution {
    const execution = runInIsolate(job, bindings, this.#isolates, onStarted);
    this.#running.add(execution);
    void execution.outcome.finally(() => this.#running.delete(execution));
    return execution;
  }

  /** Prepares the runtime's warm code cache and a spare isolate with `memoryLimitMb`, in the background. */
  warmUp(memoryLimitMb: number): void {
    this.#isolates.warmUp(memoryLimitMb);
  }

  /**
   * Prepares the isolate of a run that is compiling and type-checking now, unless a spare is ready:
   * this thread makes it (about 1.5 ms, most of it `new Isolate`) while it waits for the check, not
   * while another run's calls wait for it to answer them.
   */
  prepareNext(memoryLimitMb: number): void {
    this.#isolates.prepareSpare(memoryLimitMb);
  }

  /**
   * Disposes running isolates and waits for their runs to settle before releasing the spares:
   * a process that exits while isolates run can crash (platform notes), one that exits after this can not.
   */
  async close(): Promise<void> {
    const running = [...this.#running];
    for (const execution of running) execution.close();
    await Promise.all(running.map((execution) => execution.outcome));
    await this.#isolates.close();
  }
}
