// The benchmark as a hand-written SVG: grouped bars of the billed cost per task and mode on
// a log scale, a value on every bar, a legend, the controls shaded, and a title naming the
// model and the tokenizer. No dependency; the output is plain text and diffs cleanly.

import { MODES, type ModeId } from "./modes.js";
import { uniqueTasks } from "./report.js";
import type { BenchmarkResult } from "./run-benchmark.js";

const COLORS: Record<ModeId, string> = {
  direct: "#c0392b",
  "direct-grouped": "#e67e22",
  "direct-lean": "#f1c40f",
  programmatic: "#27ae60",
  "programmatic-retry": "#82c99a",
  "direct-padded": "#8e44ad",
  "direct-deferred": "#c39bd3",
  "programmatic-padded": "#1f4e79",
  "programmatic-deferred": "#2e6fb7",
  hosted: "#8e44ad",
};

const WIDTH = 1280;
const HEIGHT = 680;
const MARGIN = { left: 84, right: 24, top: 132, bottom: 92 };

/** The chart for `result`; see the module comment. */
export function renderChartSvg(result: BenchmarkResult): string {
  const tasks = uniqueTasks(result);
  const modes = MODES.filter((mode) => result.rows.some((row) => row.mode === mode.id));
  const values = result.rows.map((row) => row.figures.billed.totalUsd).filter((value) => value > 0);
  const minExponent = Math.floor(Math.log10(Math.min(...values)));
  const maxExponent = Math.ceil(Math.log10(Math.max(...values)) + 0.35);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const y = (value: number) =>
    MARGIN.top + plotHeight * (1 - (Math.log10(value) - minExponent) / (maxExponent - minExponent));
  const groupWidth = plotWidth / tasks.length;
  const barWidth = (groupWidth * 0.84) / modes.length;
  const parts: string[] = [];

  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="30" text-anchor="middle" font-size="20" font-weight="bold">Billed cost per task, all requests: direct vs programmatic tool calling</text>`,
    `<text x="${WIDTH / 2}" y="54" text-anchor="middle" font-size="13" fill="#444">${escapeXml(result.model.label)} prices (${escapeXml(result.model.id)}), prompt cache as the adapter's breakpoints make it; tokens by ${escapeXml(result.tokenizer)}, approximate for Claude. Log scale.</text>`,
  );

  // Legend, centred in one row; each item as wide as its label (about 7.5 px a character at 13 px).
  const legendLabels = modes.map((mode) => mode.label);
  const legendWidths = legendLabels.map((label) => 20 + label.length * 6.2 + 14);
  let legendX = WIDTH / 2 - legendWidths.reduce((sum, width) => sum + width, 0) / 2;
  modes.forEach((mode, index) => {
    parts.push(
      `<rect x="${legendX.toFixed(1)}" y="72" width="14" height="14" fill="${COLORS[mode.id]}"/>`,
      `<text x="${(legendX + 20).toFixed(1)}" y="84" font-size="12">${escapeXml(legendLabels[index]!)}</text>`,
    );
    legendX += legendWidths[index]!;
  });

  // Control groups shaded, so a reader sees where programmatic calling is not expected to win.
  tasks.forEach((task, index) => {
    if (!task.control) return;
    parts.push(
      `<rect x="${MARGIN.left + index * groupWidth}" y="${MARGIN.top - 22}" width="${groupWidth}" height="${plotHeight + 22}" fill="#f2f2f2"/>`,
    );
    parts.push(
      `<text x="${MARGIN.left + (index + 0.5) * groupWidth}" y="${MARGIN.top - 8}" text-anchor="middle" font-size="11" fill="#777">control</text>`,
    );
  });

  // Axis and decade grid lines.
  for (let exponent = minExponent; exponent <= maxExponent; exponent++) {
    const value = 10 ** exponent;
    const lineY = y(value);
    parts.push(
      `<line x1="${MARGIN.left}" y1="${lineY}" x2="${WIDTH - MARGIN.right}" y2="${lineY}" stroke="#d0d0d0" stroke-width="1"/>`,
      `<text x="${MARGIN.left - 8}" y="${lineY + 4}" text-anchor="end" font-size="12" fill="#333">${usd(value)}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${MARGIN.top + plotHeight}" stroke="#333"/>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top + plotHeight}" x2="${WIDTH - MARGIN.right}" y2="${MARGIN.top + plotHeight}" stroke="#333"/>`,
    `<text transform="translate(22 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle" font-size="13" fill="#333">billed USD, all requests (log)</text>`,
  );

  // Bars with their values.
  tasks.forEach((task, taskIndex) => {
    const groupX = MARGIN.left + taskIndex * groupWidth + groupWidth * 0.08;
    modes.forEach((mode, modeIndex) => {
      const row = result.rows.find((candidate) => candidate.task.id === task.id && candidate.mode === mode.id);
      if (row === undefined) return;
      const value = row.figures.billed.totalUsd;
      const x = groupX + modeIndex * barWidth;
      const top = y(value);
      const bottom = MARGIN.top + plotHeight;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${(bottom - top).toFixed(1)}" fill="${COLORS[mode.id]}"><title>${escapeXml(`${task.title} / ${mode.label}: ${usd(value)} billed, ${row.figures.inputTokens} input tokens, ${row.figures.requests} requests`)}</title></rect>`,
      );
      const labelX = x + (barWidth - 2) / 2 + 4;
      const mark = row.run.correct ? "" : " ✗ wrong";
      parts.push(
        `<text transform="translate(${labelX.toFixed(1)} ${(top - 4).toFixed(1)}) rotate(-90)" font-size="10" fill="${row.run.correct ? "#222" : "#c0392b"}">${usd(value)}${mark}</text>`,
      );
    });
    // Task label, wrapped to two lines under the group.
    const centre = MARGIN.left + (taskIndex + 0.5) * groupWidth;
    wrap(task.title.replace(/ \(control\)$/, ""), 17).forEach((line, lineIndex) => {
      parts.push(
        `<text x="${centre}" y="${MARGIN.top + plotHeight + 22 + lineIndex * 16}" text-anchor="middle" font-size="13" fill="#222">${escapeXml(line)}</text>`,
      );
    });
  });

  parts.push(
    `<text x="${WIDTH - MARGIN.right}" y="${HEIGHT - 12}" text-anchor="end" font-size="11" fill="#666">Offline, scripted model through the real agent loop, tools, search and sandbox. Baselines: grouped direct calls (plain and lean API).</text>`,
    "</svg>",
  );
  return `${parts.join("\n")}\n`;
}

/** 1234 -> "1.2K", 4_365_749 -> "4.37M". */
export function compact(value: number): string {
  if (value >= 1e6) return `${trim(value / 1e6)}M`;
  if (value >= 1e3) return `${trim(value / 1e3)}K`;
  return String(Math.round(value));
}

/** 0.5223 -> "$0.52", 0.0062 -> "$0.0062", 13.2 -> "$13". */
function usd(value: number): string {
  if (value >= 10) return `$${value.toFixed(0)}`;
  if (value >= 0.1) return `$${value.toFixed(2)}`;
  return `$${value.toPrecision(2)}`;
}

function trim(value: number): string {
  return value >= 100
    ? value.toFixed(0)
    : value >= 10
      ? value.toFixed(1).replace(/\.0$/, "")
      : value.toFixed(2).replace(/\.?0+$/, "");
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(" ")) {
    if (current !== "" && `${current} ${word}`.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current === "" ? word : `${current} ${word}`;
    }
  }
  if (current !== "") lines.push(current);
  return lines;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
