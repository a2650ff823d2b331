// The seccomp filter's numbers, checked against libseccomp's own tables (scmp_sys_resolver,
// Debian package `seccomp`, installed by .ci/run), and the shape of the program bwrap loads.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MODE_SETTING_CALLS, REFUSED_SYSCALLS, SOCKET, seccompFilter } from "../../src/builtins/shell-seccomp.js";

const RESOLVER = "/usr/bin/scmp_sys_resolver";

describe("the shell sandbox's seccomp filter", () => {
  it.skipIf(!existsSync(RESOLVER))(
    "refuses each call by the number libseccomp gives it on x86_64 and on aarch64",
    () => {
      for (const arch of ["x86_64", "aarch64"] as const) {
        const checked = [...REFUSED_SYSCALLS, SOCKET];
        const names = checked.map((call) => call.name);
        const numbers = names.map((name) => Number(execFileSync(RESOLVER, ["-a", arch, name], { encoding: "utf8" })));
        expect(Object.fromEntries(names.map((name, index) => [name, numbers[index]]))).toEqual(
          Object.fromEntries(checked.map((call) => [call.name, call[arch]])),
        );
      }
    },
  );

  it.skipIf(!existsSync(RESOLVER))(
    "checks the mode of each mode-setting call by the number libseccomp gives it, where the architecture has it",
    () => {
      for (const arch of ["x86_64", "aarch64"] as const) {
        for (const call of MODE_SETTING_CALLS) {
          const number = Number(execFileSync(RESOLVER, ["-a", arch, call.name], { encoding: "utf8" }));
          // libseccomp answers a negative pseudo-number for a call the architecture does not have.
          expect([call.name, number < 0 ? undefined : number]).toEqual([call.name, call[arch]]);
        }
      }
    },
  );

  it("starts with the architecture check and kills an unknown architecture", () => {
    const program = seccompFilter();
    const at = (index: number) => ({
      code: program.readUInt16LE(index * 8),
      k: program.readUInt32LE(index * 8 + 4),
    });
    expect(program.length % 8).toBe(0);
    expect(at(0)).toEqual({ code: 0x20, k: 4 }); // load seccomp_data.arch
    expect(at(1).k).toBe(0xc000003e); // AUDIT_ARCH_X86_64
    expect(at(2).k).toBe(0xc00000b7); // AUDIT_ARCH_AARCH64
    expect(at(3)).toEqual({ code: 0x06, k: 0x80000000 }); // SECCOMP_RET_KILL_PROCESS
    // Small enough to read: two deny lists of the same calls, the mode checks, a few shared endings.
    expect(program.length / 8).toBeLessThanOrEqual(2 * (REFUSED_SYSCALLS.length + 6 * MODE_SETTING_CALLS.length) + 24);
  });
});
