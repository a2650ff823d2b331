import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OrdersService } from "../../examples/orders/orders-service.js";
import { createOrdersTools } from "../../examples/orders/orders-tools.js";
import { SWEEP_PROGRAM } from "../../examples/orders/sweep-program.js";
import type { RunResult } from "../../src/contract.js";
import { Switchyard } from "../../src/switchyard.js";
import { buildTimeline } from "../../src/timeline/build-timeline.js";
import { writeTimelinePage } from "../../src/timeline/render-timeline-page.js";
import type { TraceEvent } from "../../src/trace/trace-events.js";
import { TIMELINE_PROGRAM } from "./fixtures/timeline-program.js";

// Debian's chromium (CI: apt-get install -y chromium), driven by playwright-core; never a download.
const CHROMIUM = process.env["SWITCHYARD_CHROMIUM"] ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin/switchyard.js");
const TOOLS = fileURLToPath(new URL("./fixtures/timeline-tools.ts", import.meta.url));
/** Screenshots land here (gitignored) for a person to look at. */
const ARTIFACTS = join(ROOT, "test-results", "timeline");

const run = promisify(execFile);
let browser: Browser;
let folder: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium).`);
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  folder = await mkdtemp(join(tmpdir(), "switchyard-timeline-"));
  await mkdir(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

interface OpenedPage {
  readonly page: Page;
  /** Console errors and uncaught exceptions. */
  readonly errors: string[];
  /** Every request the page made other than for the page itself. */
  readonly requests: string[];
}

async function openPage(path: string): Promise<OpenedPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  const url = pathToFileURL(path).href;
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("request", (request) => {
    if (request.url() !== url) requests.push(request.url());
  });
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]", { timeout: 10_000 });
  return { page, errors, requests };
}

describe("the run timeline page in a real browser", () => {
  it("switchyard run --report: loads cleanly offline, one bar per call, details on hover and click, failing lines marked", async () => {
    const report = join(folder, "run.html");
    const trace = join(folder, "trace.jsonl");
    const program = join(folder, "program.ts");
    const config = join(folder, "switchyard.config.json");
    await writeFile(program, TIMELINE_PROGRAM);
    await writeFile(
      config,
      JSON.stringify({
        tools: [TOOLS],
        permissions: { rules: [{ tools: "shop.remove", decision: "deny", reason: "SKUs are never removed here" }] },
      }),
    );
    const { stdout } = await run(
      process.execPath,
      [BIN, "run", "program.ts", "--config", config, "--json", "--trace", trace, "--report", report],
      { cwd: folder, timeout: 120_000 },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const result = JSON.parse(stdout) as RunResult;
    expect(result.ok).toBe(true);
    const statuses = new Set(result.calls.map((call) => call.status));
    expect([...statuses].sort()).toEqual(["denied", "error", "ok", "timeout"]);

    const { page, errors, requests } = await openPage(report);
    expect(await page.title()).toBe("Switchyard run: program.ts");
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    expect(await page.locator("g.call").count()).toBe(result.calls.length);
    for (const status of statuses) {
      expect(await page.locator(`g.call.status-${status}`).count()).toBe(
        result.calls.filter((call) => call.status === status).length,
      );
    }
    // Queued and running parts are separate shapes: the denied call never ran.
    expect(await page.locator("g.call.status-denied rect.never-ran").count()).toBe(1);
    expect(await page.locator("g.call.status-ok rect.running").count()).toBe(
      result.calls.filter((call) => call.status === "ok").length,
    );

    // Hover shows the call; a click pins it in the details panel.
    const timedOut = page.locator("g.call.status-timeout").first();
    await timedOut.hover();
    await expect.poll(() => page.locator(".tooltip").isVisible()).toBe(true);
    expect(await page.locator(".tooltip").textContent()).toContain("TOOL_TIMEOUT");
    await timedOut.click();
    expect(await page.locator(".details h3").textContent()).toContain("shop.audit");

    // Lanes per slot: the same bars, packed by concurrency.
    const laneLabels = await page.locator(".lane-label").allTextContents();
    expect(laneLabels).toEqual(["shop.stock", "shop.price", "shop.remove", "shop.audit"]);
    await page.getByRole("button", { name: "lanes per slot" }).click();
    expect(await page.locator("g.call").count()).toBe(result.calls.length);
    expect((await page.locator(".lane-label").allTextContents())[0]).toBe("slot 1");

    // Totals and the source with its failing lines.
    const totals = await page.locator(".totals").textContent();
    expect(totals).toContain(`${result.calls.length} calls`);
    expect(totals).toContain("1 denied");
    expect(
      await page
        .locator(".line.mark-failed-calls")
        .evaluateAll((lines) => lines.map((line) => line.getAttribute("data-line"))),
    ).toEqual(["7", "15", "16"]);
    expect(await page.locator('.line[data-line="7"] .note').textContent()).toMatch(
      /calls to shop\.price failed \(\d+ UPSTREAM_BUSY\)/,
    );

    await page.getByRole("button", { name: "lanes per tool" }).click();
    // The README's picture, docs/images/timeline.png, is a copy of this screenshot.
    await page.screenshot({ path: join(ARTIFACTS, "run-report.png"), fullPage: true });
    await page.close();

    // The same run from its JSONL trace, with the source given separately.
    const viewed = join(folder, "viewed.html");
    const view = await run(process.execPath, [BIN, "trace", "view", trace, "--program", program, "--out", viewed], {
      cwd: ROOT,
      timeout: 60_000,
    });
    expect(view.stdout).toBe(`${viewed}: 1 runs, ${result.calls.length} calls\n`);
    const fromTrace = await openPage(viewed);
    expect(fromTrace.errors).toEqual([]);
    expect(await fromTrace.page.locator("g.call").count()).toBe(result.calls.length);
    expect(await fromTrace.page.locator(".line.mark-failed-calls").count()).toBe(3);
    await fromTrace.page.close();
  }, 180_000);

  it("draws the 651-call orders sweep, and a failed run with its error line, without console errors", async () => {
    const service = new OrdersService({ latencyMs: 2 });
    const yard = new Switchyard({ tools: createOrdersTools(service) });
    const events: TraceEvent[] = [];
    yard.trace.subscribe((event) => events.push(event));
    const sweep = await yard.run(SWEEP_PROGRAM);
    const broken = `const page = await tools.orders.search({ customerId: "cus_1001" });\nreturn page.orders[0].missing.field;`;
    const failed = await yard.run(broken, { typeCheck: "off" });
    // A run whose output and log held a token: the page counts the replacements, never shows the value.
    const token = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`;
    const leaky = await yard.run(`console.log("using ${token}"); return { token: "${token}" };`);
    await yard.close();
    expect(leaky.redactions).toEqual({ "github-token": 2 });
    expect(sweep.calls.length).toBeGreaterThan(600);
    expect(failed.error?.code).toBe("RUNTIME_ERROR");

    const page = join(folder, "orders.html");
    const sources = new Map([
      [sweep.programId, SWEEP_PROGRAM],
      [failed.programId, broken],
    ]);
    expect(JSON.stringify(events)).not.toContain(token);
    await writeTimelinePage(page, buildTimeline(events, { title: "Orders sweep: duplicate charges", sources }));
    const html = await readFile(page, "utf8");
    expect(html).not.toMatch(/<(link|img|iframe)\b|src=["']http/i);

    const opened = await openPage(page);
    expect(opened.errors).toEqual([]);
    expect(opened.requests).toEqual([]);
    expect(await opened.page.locator("section.run").count()).toBe(3);
    const leakySection = opened.page.locator(`section.run[data-program-id="${leaky.programId}"]`);
    expect(await leakySection.locator(".totals .chip.redacted").textContent()).toBe("2 redacted (2 github-token)");
    expect(await opened.page.locator(`section.run[data-program-id="${sweep.programId}"] .chip.redacted`).count()).toBe(
      0,
    );
    const bars = opened.page.locator(`section.run[data-program-id="${sweep.programId}"] g.call`);
    expect(await bars.count()).toBe(sweep.calls.length);
    const failedSection = opened.page.locator(`section.run[data-program-id="${failed.programId}"]`);
    expect(await failedSection.locator("h2").textContent()).toContain("failed: RUNTIME_ERROR");
    expect(await failedSection.locator(".line.mark-error").getAttribute("data-line")).toBe("2");
    await opened.page
      .locator("section.run")
      .first()
      .screenshot({ path: join(ARTIFACTS, "timeline.png") });
    await opened.page.close();
  }, 120_000);
});
