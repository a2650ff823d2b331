// Draws a run timeline page in the browser from the JSON the host embedded in it: calls as bars
// on a time axis (queued and running parts, colour by status), lanes per tool or per
// concurrency slot, details on hover and click, totals, and the program's source with its
// failing lines marked. Runs offline: no network, no libraries, nothing but this page's DOM.

import { axisTicks } from "./axis-ticks.js";
import type { TimelineCall, TimelineCallStatus, TimelineData, TimelineRun } from "./timeline-data.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const ROW_HEIGHT_PX = 12;
const ROW_GAP_PX = 3;
const AXIS_HEIGHT_PX = 24;
const LABEL_WIDTH_PX = 190;
const RIGHT_PAD_PX = 16;
const MIN_BAR_PX = 1.5;

const STATUSES: readonly TimelineCallStatus[] = ["ok", "error", "invalid", "denied", "timeout", "cancelled"];

type LaneMode = "tool" | "slot";

interface Lane {
  readonly label: string;
  /** True for the first row of a tool's group: drawn with its label and a separator above. */
  readonly groupStart: boolean;
  readonly calls: TimelineCall[];
  end: number;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

function formatMs(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Assigns each call to the first row free at its queue time (calls sorted by queue time). */
function packRows(calls: readonly TimelineCall[], label: (row: number) => string): Lane[] {
  const lanes: Lane[] = [];
  const sorted = [...calls].sort((a, b) => a.queuedAt - b.queuedAt || a.endedAt - b.endedAt);
  for (const call of sorted) {
    let lane = lanes.find((candidate) => candidate.end <= call.queuedAt);
    if (lane === undefined) {
      lane = { label: label(lanes.length), groupStart: lanes.length === 0, calls: [], end: 0 };
      lanes.push(lane);
    }
    lane.calls.push(call);
    lane.end = Math.max(call.endedAt, call.queuedAt + 1e-6);
  }
  return lanes;
}

function lanesOf(run: TimelineRun, mode: LaneMode): Lane[] {
  if (mode === "slot") return packRows(run.calls, (row) => `slot ${row + 1}`);
  const byTool = new Map<string, TimelineCall[]>();
  for (const call of run.calls) {
    const group = byTool.get(call.tool) ?? [];
    group.push(call);
    byTool.set(call.tool, group);
  }
  return [...byTool].flatMap(([tool, calls]) => packRows(calls, (row) => (row === 0 ? tool : "")));
}

/** Most calls running at one instant (queued time excluded). */
function maxRunning(calls: readonly TimelineCall[]): number {
  const edges: [number, number][] = [];
  for (const call of calls) {
    if (call.startedAt === null) continue;
    edges.push([call.startedAt, 1], [call.endedAt, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let most = 0;
  for (const [, delta] of edges) {
    running += delta;
    most = Math.max(most, running);
  }
  return most;
}

/** When the first call was queued; the run's start when it made none. */
function firstCallAt(run: TimelineRun): number {
  return run.calls.reduce(
    (first, call) => Math.min(first, call.queuedAt),
    run.calls.length > 0 ? Infinity : run.startedAt,
  );
}

function describeCall(call: TimelineCall, run: TimelineRun): [string, string][] {
  const rows: [string, string][] = [
    ["tool", call.tool],
    ["call", call.id],
    ["status", call.code === null ? call.status : `${call.status} (${call.code})`],
    ["queued at", `+${formatMs(call.queuedAt - run.startedAt)}`],
  ];
  if (call.replayed === true) rows.push(["ran", "no: replayed from the durable run's journal"]);
  else if (call.startedAt === null) rows.push(["ran", "never (answered before its tool started)"]);
  else {
    rows.push(["waited", formatMs(call.startedAt - call.queuedAt)]);
    rows.push(["ran", formatMs(call.endedAt - call.startedAt)]);
  }
  rows.push(["total", formatMs(call.endedAt - call.queuedAt)]);
  rows.push(["bytes in / out", `${formatBytes(call.bytesIn)} / ${formatBytes(call.bytesOut)}`]);
  const redacted = run.redactions.filter((redaction) => redaction.callId === call.id);
  if (redacted.length > 0) {
    rows.push(["redacted", redacted.map((redaction) => `${redaction.kind} at ${redaction.path}`).join(", ")]);
  }
  return rows;
}

/** `2 github-token, 1 jwt`: the kinds of `redactions`, most frequent first. */
function redactionKinds(redactions: TimelineRun["redactions"]): string {
  const counts = new Map<string, number>();
  for (const redaction of redactions) counts.set(redaction.kind, (counts.get(redaction.kind) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, count]) => `${count} ${kind}`)
    .join(", ");
}

function definitionList(rows: readonly [string, string][]): HTMLDListElement {
  const list = element("dl");
  for (const [term, value] of rows) {
    list.append(element("dt", {}, term), element("dd", {}, value));
  }
  return list;
}

const tooltip = element("div", { class: "tooltip", role: "tooltip" });
tooltip.hidden = true;

function drawTimeline(container: HTMLElement, run: TimelineRun, mode: LaneMode, details: HTMLElement): void {
  container.replaceChildren();
  const lanes = lanesOf(run, mode);
  const width = Math.max(container.clientWidth, 480);
  const plotWidth = width - LABEL_WIDTH_PX - RIGHT_PAD_PX;
  // The axis starts at the first call: compiling and type-checking before it would squash the bars.
  const axisStart = firstCallAt(run);
  const spanMs = Math.max(run.endedAt - axisStart, 1);
  const x = (time: number): number => LABEL_WIDTH_PX + ((time - axisStart) / spanMs) * plotWidth;
  const height = AXIS_HEIGHT_PX + lanes.length * (ROW_HEIGHT_PX + ROW_GAP_PX) + 4;
  const chart = svg("svg", { width, height, class: "chart", role: "img" });
  chart.setAttribute("aria-label", `${run.calls.length} calls over ${formatMs(spanMs)}`);

  for (const tick of axisTicks(axisStart - run.startedAt, spanMs, Math.floor(plotWidth / 90))) {
    const tickX = x(axisStart + tick.atMs);
    chart.append(svg("line", { x1: tickX, x2: tickX, y1: AXIS_HEIGHT_PX - 6, y2: height, class: "grid" }));
    const label = svg("text", { x: tickX, y: AXIS_HEIGHT_PX - 10, class: "tick" });
    label.textContent = tick.label;
    chart.append(label);
  }

  lanes.forEach((lane, row) => {
    const y = AXIS_HEIGHT_PX + row * (ROW_HEIGHT_PX + ROW_GAP_PX);
    if (lane.groupStart && row > 0) {
      chart.append(svg("line", { x1: 0, x2: width, y1: y - 1.5, y2: y - 1.5, class: "separator" }));
    }
    if (lane.label !== "") {
      const label = svg("text", { x: LABEL_WIDTH_PX - 8, y: y + ROW_HEIGHT_PX - 2, class: "lane-label" });
      label.textContent = lane.label.length > 24 ? `${lane.label.slice(0, 23)}…` : lane.label;
      chart.append(label);
    }
    for (const call of lane.calls) {
      const replayed = call.replayed === true ? " replayed" : "";
      const group = svg("g", { class: `call status-${call.status}${replayed}`, "data-call-id": call.id });
      const queuedEnd = call.startedAt ?? call.endedAt;
      if (call.startedAt === null || queuedEnd > call.queuedAt) {
        const left = x(call.queuedAt);
        group.append(
          svg("rect", {
            x: left,
            y,
            width: Math.max(x(queuedEnd) - left, call.startedAt === null ? MIN_BAR_PX : 0.5),
            height: ROW_HEIGHT_PX,
            class: call.startedAt === null ? "queued never-ran" : "queued",
          }),
        );
      }
      if (call.startedAt !== null) {
        const left = x(call.startedAt);
        group.append(
          svg("rect", {
            x: left,
            y,
            width: Math.max(x(call.endedAt) - left, MIN_BAR_PX),
            height: ROW_HEIGHT_PX,
            class: "running",
          }),
        );
      }
      chart.append(group);
    }
  });

  const byId = new Map(run.calls.map((call) => [call.id, call]));
  const callOf = (target: EventTarget | null): TimelineCall | undefined => {
    const group = target instanceof Element ? target.closest("g.call") : null;
    const id = group?.getAttribute("data-call-id");
    return id === null || id === undefined ? undefined : byId.get(id);
  };
  chart.addEventListener("mousemove", (event) => {
    const call = callOf(event.target);
    if (call === undefined) {
      tooltip.hidden = true;
      return;
    }
    tooltip.replaceChildren(definitionList(describeCall(call, run)));
    tooltip.hidden = false;
    tooltip.style.left = `${Math.min(event.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8)}px`;
    tooltip.style.top = `${event.clientY + 14}px`;
  });
  chart.addEventListener("mouseleave", () => {
    tooltip.hidden = true;
  });
  chart.addEventListener("click", (event) => {
    const call = callOf(event.target);
    for (const selected of chart.querySelectorAll("g.call.selected")) selected.classList.remove("selected");
    if (call === undefined) {
      details.replaceChildren(element("p", { class: "hint" }, "Click a bar for its details."));
      return;
    }
    (event.target as Element).closest("g.call")?.classList.add("selected");
    details.replaceChildren(element("h3", {}, `${call.tool} · ${call.id}`), definitionList(describeCall(call, run)));
  });
  container.append(chart);
}

function countsByStatus(calls: readonly TimelineCall[]): Map<TimelineCallStatus, number> {
  const counts = new Map<TimelineCallStatus, number>();
  for (const call of calls) counts.set(call.status, (counts.get(call.status) ?? 0) + 1);
  return counts;
}

function totals(run: TimelineRun): HTMLElement {
  const box = element("div", { class: "totals" });
  const counts = countsByStatus(run.calls);
  box.append(element("span", { class: "chip" }, `${run.calls.length} calls`));
  for (const status of STATUSES) {
    const count = counts.get(status);
    if (count !== undefined) box.append(element("span", { class: `chip status-${status}` }, `${count} ${status}`));
  }
  const bytesIn = run.calls.reduce((sum, call) => sum + call.bytesIn, 0);
  const bytesOut = run.calls.reduce((sum, call) => sum + call.bytesOut, 0);
  box.append(
    element("span", { class: "chip" }, `wall ${formatMs(run.endedAt - run.startedAt)}`),
    element(
      "span",
      { class: "chip" },
      `first call at +${formatMs(firstCallAt(run) - run.startedAt)} (compile, type check, sandbox start)`,
    ),
    element("span", { class: "chip" }, `at most ${maxRunning(run.calls)} running at once`),
    element("span", { class: "chip" }, `${formatBytes(bytesOut)} of results, ${formatBytes(bytesIn)} of arguments`),
  );
  if (run.catalogVersion !== null) box.append(element("span", { class: "chip" }, `catalog v${run.catalogVersion}`));
  if (run.redactions.length > 0) {
    box.append(
      element(
        "span",
        { class: "chip redacted", title: "values replaced by [REDACTED:<kind>] before they reached the model" },
        `${run.redactions.length} redacted (${redactionKinds(run.redactions)})`,
      ),
    );
  }
  return box;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function toolTable(run: TimelineRun): HTMLTableElement {
  const table = element("table", { class: "tools" });
  const head = element("tr");
  for (const title of ["tool", "calls", "ok", "failed", "median", "slowest"]) head.append(element("th", {}, title));
  table.append(element("thead"));
  table.tHead?.append(head);
  const body = element("tbody");
  const byTool = new Map<string, TimelineCall[]>();
  for (const call of run.calls) byTool.set(call.tool, [...(byTool.get(call.tool) ?? []), call]);
  for (const [tool, calls] of byTool) {
    const durations = calls.map((call) => call.endedAt - call.queuedAt);
    const failed = calls.filter((call) => call.status !== "ok");
    const codes = [...new Set(failed.map((call) => call.code ?? call.status))].join(", ");
    const row = element("tr");
    row.append(
      element("td", {}, tool),
      element("td", {}, String(calls.length)),
      element("td", {}, String(calls.length - failed.length)),
      element(
        "td",
        failed.length > 0 ? { class: "failed" } : {},
        failed.length > 0 ? `${failed.length} (${codes})` : "0",
      ),
      element("td", {}, formatMs(median(durations))),
      element("td", {}, formatMs(Math.max(...durations))),
    );
    body.append(row);
  }
  table.append(body);
  return table;
}

function sourceView(run: TimelineRun): HTMLElement {
  const figure = element("figure", { class: "source" });
  figure.append(element("figcaption", {}, "Program"));
  const code = element("pre");
  const lines = (run.source ?? "").split("\n");
  lines.forEach((text, index) => {
    const number = index + 1;
    const marks = run.marks.filter((mark) => mark.line === number);
    const kind = marks.some((mark) => mark.kind === "error") ? "error" : marks.length > 0 ? "failed-calls" : "";
    const line = element("div", { class: kind === "" ? "line" : `line mark-${kind}`, "data-line": String(number) });
    line.append(element("span", { class: "number" }, String(number)), element("code", {}, text === "" ? " " : text));
    for (const mark of marks) line.append(element("span", { class: `note note-${mark.kind}` }, mark.note));
    code.append(line);
  });
  figure.append(code);
  return figure;
}

function runTitle(run: TimelineRun): string {
  if (run.programId === null) return "Direct calls";
  const status = run.ok === null ? "did not finish in this trace" : run.ok ? "ok" : `failed: ${run.code ?? "error"}`;
  return `Program ${run.programId} · ${status}`;
}

/** A run's section, and the function that draws its chart once the section is in the page (it needs its width). */
function drawRun(run: TimelineRun): { section: HTMLElement; redraw: () => void } {
  const section = element("section", { class: "run", "data-program-id": run.programId ?? "" });
  section.append(element("h2", {}, runTitle(run)));
  if (run.message !== null) section.append(element("p", { class: "run-error" }, run.message));
  section.append(totals(run));

  const controls = element("div", { class: "controls" });
  const byTool = element("button", { type: "button", "aria-pressed": "true" }, "lanes per tool");
  const bySlot = element("button", { type: "button", "aria-pressed": "false" }, "lanes per slot");
  const legend = element("span", { class: "legend" });
  for (const status of STATUSES) legend.append(element("span", { class: `swatch status-${status}` }, status));
  legend.append(element("span", { class: "swatch queued" }, "queued"));
  controls.append(byTool, bySlot, legend);
  section.append(controls);

  const chart = element("div", { class: "timeline" });
  const details = element("div", { class: "details" });
  details.append(element("p", { class: "hint" }, "Click a bar for its details."));
  section.append(chart, details);
  let mode: LaneMode = "tool";
  const redraw = (): void => drawTimeline(chart, run, mode, details);
  const choose = (next: LaneMode): void => {
    mode = next;
    byTool.setAttribute("aria-pressed", String(next === "tool"));
    bySlot.setAttribute("aria-pressed", String(next === "slot"));
    redraw();
  };
  byTool.addEventListener("click", () => choose("tool"));
  bySlot.addEventListener("click", () => choose("slot"));
  let resizeTimer: number | undefined;
  window.addEventListener("resize", () => {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(redraw, 100);
  });

  if (run.calls.length > 0) section.append(toolTable(run));
  if (run.source !== null) section.append(sourceView(run));
  return { section, redraw };
}

function main(): void {
  const embedded = document.getElementById("timeline-data")?.textContent ?? "null";
  const data = JSON.parse(embedded) as TimelineData | null;
  const root = document.getElementById("runs");
  if (data === null || root === null) throw new Error("the page has no timeline data");
  const calls = data.runs.reduce((sum, run) => sum + run.calls.length, 0);
  const meta = document.getElementById("meta");
  if (meta !== null) {
    const skipped = data.skippedLines > 0 ? ` · ${data.skippedLines} unreadable trace lines skipped` : "";
    meta.textContent = `${data.runs.length} run${data.runs.length === 1 ? "" : "s"} · ${calls} calls · written ${data.generatedAt}${skipped}`;
  }
  if (data.runs.length === 0) root.append(element("p", { class: "hint" }, "No program runs or calls in this trace."));
  const drawn = data.runs.map(drawRun);
  root.append(...drawn.map((run) => run.section));
  for (const run of drawn) run.redraw();
  document.body.append(tooltip);
  document.body.dataset["ready"] = "true";
}

main();
