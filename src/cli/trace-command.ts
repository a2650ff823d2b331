// `switchyard trace view`: turns a JSONL trace (`switchyard run --trace`) into the timeline page.
// Parsing and printing only; reading, building and writing the page live in src/timeline.

import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { SwitchyardError } from "../errors.js";
import { fileErrorOf } from "./cli-error.js";

/** Adds `trace view <file> [--out <file>] [--program <file>]` to the program. */
export function registerTraceCommand(program: Command): void {
  const trace = program.command("trace").description("work with JSONL traces written by `run --trace`");
  trace
    .command("view")
    .description("write the run timeline of a trace as one self-contained HTML file")
    .argument("<trace>", "the JSONL trace file")
    .option("--out <file>", "where to write the page (default: the trace's name with .html)")
    .option("--program <file>", "the program's source, shown with its failing lines marked")
    .action(async (file: string, options: { out?: string; program?: string }) => {
      const { buildTimeline } = await import("../timeline/build-timeline.js");
      const { readTraceFile } = await import("../timeline/read-trace-file.js");
      const { writeTimelinePage } = await import("../timeline/render-timeline-page.js");
      const { events, skippedLines } = await readTraceFile(file).catch((error: unknown) => {
        throw fileErrorOf(error, file, "the trace", "read");
      });
      if (events.length === 0 && skippedLines > 0) {
        throw new SwitchyardError(
          "OPTION_INVALID",
          `${JSON.stringify(file)} holds no trace events (${skippedLines} lines read); give a JSONL trace written by \`switchyard run --trace\`.`,
        );
      }
      const program = options.program;
      const source =
        program === undefined
          ? undefined
          : await readFile(program, "utf8").catch((error: unknown) => {
              throw fileErrorOf(error, program, "the program (--program)", "read");
            });
      const data = buildTimeline(events, {
        title: `Switchyard timeline: ${file}`,
        skippedLines,
        ...(source === undefined ? {} : { sources: source }),
      });
      const out = options.out ?? `${file.replace(/\.jsonl?$/i, "")}.html`;
      await writeTimelinePage(out, data).catch((error: unknown) => {
        throw fileErrorOf(error, out, "the page (--out)", "write");
      });
      const calls = data.runs.reduce((sum, run) => sum + run.calls.length, 0);
      process.stdout.write(`${out}: ${data.runs.length} runs, ${calls} calls\n`);
    });
}
