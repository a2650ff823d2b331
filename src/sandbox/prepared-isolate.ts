// What the isolate pool hands a run: a fresh isolate with the guest runtime evaluated, not yet
// bound to any run. Its own file so the pool, the run and the runtime code cache (which warms one
// up) share the type without importing each other.

import type ivm from "isolated-vm";
import type { GuestBindings } from "./sandbox-executor.js";

/**
 * An isolate nobody has run code in yet, with the guest runtime installed. Its References
 * lead to bindings that refuse everything until `bind` attaches one run.
 */
export interface PreparedIsolate {
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  bind(bindings: GuestBindings): void;
  /**
   * Disposes the isolate (if still alive), hands the console lines it wrote to the bound
   * `log` (so a run's log is whole however it ended), and releases the References. When the
   * guest is blocked in a crossing whose answer is not ready, the crossing is answered with
   * nothing first and the isolate disposed in the next check phase: never while isolated-vm
   * still has to deliver that answer (which would crash the host).
   */
  dispose(): void;
}
