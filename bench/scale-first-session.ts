// The child of bench:scale's first-session row: a process whose first session has `size` tools
// (a gateway starting in front of a company's catalog, nothing warmed by earlier sessions). It
// constructs the session, then watches the event loop with 1 ms timers until the session's
// background (the search index's build, scoring data and warm-up) is done, and prints one line
// of JSON: { constructMs, longestGapMs, backgroundMs }. The timers keep the loop awake, as a
// server's traffic would; the longest gap is the longest the loop was held after the constructor.
// Run: node --no-node-snapshot dist-bench/bench/scale-first-session.js <size>

import { Switchyard } from "../src/switchyard.js";
import { catalogOf } from "./scale-catalog.js";

const size = Number(process.argv[2] ?? 5_000);
const tools = catalogOf(size);
const started = performance.now();
const yard = new Switchyard({ tools });
const constructMs = performance.now() - started;
let longestGapMs = 0;
let last = performance.now();
while (!yard.discovery.backgroundDone && performance.now() - started < 60_000) {
  await new Promise((resolve) => setTimeout(resolve, 1));
  const now = performance.now();
  longestGapMs = Math.max(longestGapMs, now - last - 1);
  last = now;
}
const backgroundMs = performance.now() - started;
await yard.close();
console.log(JSON.stringify({ constructMs, longestGapMs, backgroundMs }));
