// Prototype for bench:throughput: a worker process that loads the tools itself and runs whole
// sessions, pipeline included, so a program's calls never cross to the host. Measured beside
// the host pipeline to choose the default; not used by the library (see the README).

import { Switchyard } from "../src/switchyard.js";
import { ioTools } from "./throughput-tools.js";

let yard: Switchyard | undefined;

process.on("message", (message: { id: number; source: string; memoryLimitMb: number }) => {
  yard ??= new Switchyard({ tools: ioTools(), typeCheck: "off", limits: { memoryLimitMb: message.memoryLimitMb } });
  void yard.run(message.source).then((result) => process.send?.({ id: message.id, ok: result.ok }));
});
process.on("disconnect", () => void yard?.close());
