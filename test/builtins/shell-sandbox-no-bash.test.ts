// The sandbox closes inherited descriptors with a fixed bash script before the command runs. On a
// host without bash it must refuse to run commands (SANDBOX_UNAVAILABLE, naming the package), not
// run them with the host's descriptors open or fall back to no sandbox. Unsandboxed commands are
// refused too: without bash nothing closes what the host holds open before they run.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  // bash alone is missing; bwrap, prlimit and dash are found where they are.
  const existsSync = (path: import("node:fs").PathLike): boolean =>
    !String(path).endsWith("/bash") && actual.existsSync(path);
  return { ...actual, existsSync, default: { ...actual, existsSync } };
});

const { detectShellSandbox } = await import("../../src/builtins/shell-sandbox.js");
const { createShellTool } = await import("../../src/builtins/shell-tool.js");

describe.skipIf(process.platform !== "linux")("the shell sandbox on a host without bash", () => {
  const workspace = mkdtempSync(join(tmpdir(), "switchyard-no-bash-"));

  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  it("says the sandbox is unavailable and names the package", () => {
    const found = detectShellSandbox("none");
    expect(found).toEqual({ unavailable: expect.stringMatching(/^bash is not installed \(apt-get install -y bash\)/) });
  });

  it("refuses to create shell.run without unsandboxed: true", () => {
    expect(() => createShellTool({ workspace })).toThrow(/bash is not installed.*never run without a sandbox/);
  });

  it("refuses to create shell.run with unsandboxed: true too, rather than hand commands the host's descriptors", () => {
    expect(() => createShellTool({ workspace, unsandboxed: true })).toThrow(
      expect.objectContaining({ code: "SANDBOX_UNAVAILABLE", message: expect.stringMatching(/bash is not installed/) }),
    );
  });
});
