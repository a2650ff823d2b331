// SIGINT and SIGTERM for a whole `switchyard` command: the first one aborts one AbortSignal
// that a command claims and passes to what it runs (a run ends CANCELLED, every pending call
// with it), and fixes the exit code at 130 or 143; a command that claimed nothing (`tools`,
// `types`) just stops. A terminal's Ctrl-C reaches both bin/switchyard.js and this process,
// and the wrapper forwards it too: one press arrives twice, so a repeat within
// DUPLICATE_WINDOW_MS is ignored; a later one stops the process at once.

/** The signals a command stops on, with the exit code each leaves (128 + signal number). */
export const INTERRUPT_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

export type InterruptSignal = keyof typeof INTERRUPT_EXIT_CODES;

/** A repeat of the first signal this soon is the same request (terminal and wrapper both sent it), in ms. */
export const DUPLICATE_WINDOW_MS = 1_500;

/** What a command reads: the signal to pass on, and what was received. */
export interface ProcessInterrupts {
  /**
   * The signal the first SIGINT or SIGTERM aborts (its reason names the signal), claimed by a
   * command that ends its own work when it fires. Until something claims it, a signal stops
   * the process at once.
   */
  claim(): AbortSignal;
  /** The first signal received, if any. */
  readonly received: InterruptSignal | undefined;
  /** 130 or 143 once a signal was received. */
  readonly exitCode: number | undefined;
}

interface InterruptTarget {
  on(event: InterruptSignal, listener: () => void): unknown;
  exit(code: number): never;
}

interface Notice {
  write(text: string): unknown;
}

let installed: ProcessInterrupts | undefined;

/**
 * The interrupts of this process, installing the handlers on first use. Handlers stay for the
 * life of the process: with none left, Node would let a repeated signal kill the process
 * halfway through its shutdown.
 */
export function processInterrupts(): ProcessInterrupts {
  installed ??= watchInterrupts(process, process.stderr);
  return installed;
}

/** Installs the handlers on `target` (the process, or a stand-in in tests); see the module comment. */
export function watchInterrupts(
  target: InterruptTarget,
  notice: Notice,
  now: () => number = Date.now,
): ProcessInterrupts {
  const controller = new AbortController();
  let claimed = false;
  let received: InterruptSignal | undefined;
  let receivedAt = 0;
  const handle = (name: InterruptSignal): void => {
    if (received === undefined && !claimed) {
      received = name;
      target.exit(INTERRUPT_EXIT_CODES[name]);
      return;
    }
    if (received === undefined) {
      received = name;
      receivedAt = now();
      notice.write(
        `switchyard: ${name} received, stopping (pending calls are cancelled); send it again to stop at once\n`,
      );
      controller.abort(new Error(`${name} received`));
      return;
    }
    if (now() - receivedAt < DUPLICATE_WINDOW_MS) return;
    notice.write(`switchyard: ${name} received again, stopping now\n`);
    target.exit(INTERRUPT_EXIT_CODES[received]);
  };
  target.on("SIGINT", () => handle("SIGINT"));
  target.on("SIGTERM", () => handle("SIGTERM"));
  return {
    claim() {
      claimed = true;
      return controller.signal;
    },
    get received() {
      return received;
    },
    get exitCode() {
      return received === undefined ? undefined : INTERRUPT_EXIT_CODES[received];
    },
  };
}
