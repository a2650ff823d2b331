// The seccomp filter of the shell sandbox: a classic-BPF program, handed to bwrap with
// `--seccomp <fd>`, that refuses the system calls a shell and its tools never need (mounts,
// namespaces, ptrace, keyrings, bpf, module loading, kexec, io_uring …) with EPERM.
//
// Why assembled here: no npm package builds seccomp BPF without a native addon, libseccomp's
// command-line tools resolve names but do not export programs, and its Python binding would make
// Python a run-time dependency of the host. The program is a short deny list with the two
// architecture checks; test/builtins/shell-seccomp.test.ts checks every number against
// libseccomp's `scmp_sys_resolver` where it is installed, and the sandbox tests run it for real.

/** One refused system call and its number on each supported architecture. */
interface RefusedCall {
  readonly name: string;
  readonly x86_64: number;
  readonly aarch64: number;
}

/**
 * The system calls refused with EPERM (numbers from the kernel's syscall tables: x86_64's
 * syscall_64.tbl, aarch64's asm-generic unistd.h). Grouped by why a command must not have them.
 */
export const REFUSED_SYSCALLS: readonly RefusedCall[] = [
  // Mounting: a remount or umount changes what the sandbox's read-only binds and masks mean.
  { name: "mount", x86_64: 165, aarch64: 40 },
  { name: "umount2", x86_64: 166, aarch64: 39 },
  { name: "pivot_root", x86_64: 155, aarch64: 41 },
  { name: "chroot", x86_64: 161, aarch64: 51 },
  { name: "open_tree", x86_64: 428, aarch64: 428 },
  { name: "move_mount", x86_64: 429, aarch64: 429 },
  { name: "fsopen", x86_64: 430, aarch64: 430 },
  { name: "fsconfig", x86_64: 431, aarch64: 431 },
  { name: "fsmount", x86_64: 432, aarch64: 432 },
  { name: "fspick", x86_64: 433, aarch64: 433 },
  { name: "mount_setattr", x86_64: 442, aarch64: 442 },
  // New namespaces: a fresh user namespace would give a command every capability again.
  { name: "unshare", x86_64: 272, aarch64: 97 },
  { name: "setns", x86_64: 308, aarch64: 268 },
  // Other processes' memory and descriptors.
  { name: "ptrace", x86_64: 101, aarch64: 117 },
  { name: "process_vm_readv", x86_64: 310, aarch64: 270 },
  { name: "process_vm_writev", x86_64: 311, aarch64: 271 },
  { name: "kcmp", x86_64: 312, aarch64: 272 },
  { name: "pidfd_getfd", x86_64: 438, aarch64: 438 },
  // Kernel keyrings (shared with the host's user), BPF, perf, userfaultfd, file handles.
  { name: "keyctl", x86_64: 250, aarch64: 219 },
  { name: "add_key", x86_64: 248, aarch64: 217 },
  { name: "request_key", x86_64: 249, aarch64: 218 },
  { name: "bpf", x86_64: 321, aarch64: 280 },
  { name: "perf_event_open", x86_64: 298, aarch64: 241 },
  { name: "userfaultfd", x86_64: 323, aarch64: 282 },
  { name: "open_by_handle_at", x86_64: 304, aarch64: 265 },
  { name: "name_to_handle_at", x86_64: 303, aarch64: 264 },
  { name: "fanotify_init", x86_64: 300, aarch64: 262 },
  // io_uring runs operations that seccomp never sees.
  { name: "io_uring_setup", x86_64: 425, aarch64: 425 },
  { name: "io_uring_enter", x86_64: 426, aarch64: 426 },
  { name: "io_uring_register", x86_64: 427, aarch64: 427 },
  // Anonymous memory files: written with write(), they grow outside RLIMIT_AS and the tmpfs sizes.
  { name: "memfd_create", x86_64: 319, aarch64: 279 },
  // Modules, kexec, swap, reboot, clocks, accounting, quotas, the kernel log.
  { name: "init_module", x86_64: 175, aarch64: 105 },
  { name: "finit_module", x86_64: 313, aarch64: 273 },
  { name: "delete_module", x86_64: 176, aarch64: 106 },
  { name: "kexec_load", x86_64: 246, aarch64: 104 },
  { name: "kexec_file_load", x86_64: 320, aarch64: 294 },
  { name: "swapon", x86_64: 167, aarch64: 224 },
  { name: "swapoff", x86_64: 168, aarch64: 225 },
  { name: "reboot", x86_64: 169, aarch64: 142 },
  { name: "settimeofday", x86_64: 164, aarch64: 170 },
  { name: "clock_settime", x86_64: 227, aarch64: 112 },
  { name: "clock_adjtime", x86_64: 305, aarch64: 266 },
  { name: "adjtimex", x86_64: 159, aarch64: 171 },
  { name: "acct", x86_64: 163, aarch64: 89 },
  { name: "quotactl", x86_64: 179, aarch64: 60 },
  { name: "syslog", x86_64: 103, aarch64: 116 },
  { name: "sethostname", x86_64: 170, aarch64: 161 },
  { name: "setdomainname", x86_64: 171, aarch64: 162 },
];

/**
 * socket(2) for AF_VSOCK is refused: vsock is not separated by network namespaces, so in a
 * virtual machine it would reach the hypervisor's services from a sandbox without network.
 */
export const SOCKET = { name: "socket", x86_64: 41, aarch64: 198 } as const;
export const AF_VSOCK = 40;

/**
 * Calls that set a file's mode, and where their mode argument is: one with S_ISUID or S_ISGID is
 * refused. As root the sandbox user is host uid 0, and a file's owner may set those bits with no
 * capability: a command left a setuid-root copy of dash in the workspace, `nosuid` only on the
 * sandbox's own mount, so any host user who could reach it became root. `open`, `openat` and
 * `creat` are checked only when they create (O_CREAT, O_TMPFILE): their mode is garbage otherwise.
 * aarch64 has no chmod, open, creat or mknod (only the *at forms).
 */
export const MODE_SETTING_CALLS: readonly {
  readonly name: string;
  readonly x86_64: number | undefined;
  readonly aarch64: number | undefined;
  /** The argument that holds the mode. */
  readonly modeArg: number;
  /** The argument that holds open's flags, when the mode counts only with O_CREAT or O_TMPFILE. */
  readonly flagsArg?: number;
}[] = [
  { name: "chmod", x86_64: 90, aarch64: undefined, modeArg: 1 },
  { name: "fchmod", x86_64: 91, aarch64: 52, modeArg: 1 },
  { name: "fchmodat", x86_64: 268, aarch64: 53, modeArg: 2 },
  { name: "fchmodat2", x86_64: 452, aarch64: 452, modeArg: 2 },
  { name: "mknod", x86_64: 133, aarch64: undefined, modeArg: 1 },
  { name: "mknodat", x86_64: 259, aarch64: 33, modeArg: 2 },
  { name: "creat", x86_64: 85, aarch64: undefined, modeArg: 1 },
  { name: "open", x86_64: 2, aarch64: undefined, modeArg: 2, flagsArg: 1 },
  { name: "openat", x86_64: 257, aarch64: 56, modeArg: 3, flagsArg: 2 },
];
/** S_ISUID | S_ISGID. */
export const SET_ID_BITS = 0o6000;
// O_CREAT | __O_TMPFILE (the same on x86_64 and aarch64).
const CREATING_FLAGS = 0o100 | 0o20000000;
// openat2 passes its mode in memory seccomp cannot read: ENOSYS makes callers fall back to openat.
const OPENAT2 = 437;

/** clone(2) with any of these flags makes a namespace: refused (CLONE_NEWNS … CLONE_NEWTIME). */
export const CLONE_NAMESPACE_FLAGS = 0x7e02_0080;
const CLONE = { x86_64: 56, aarch64: 220 };
// clone3 passes its flags in memory that seccomp cannot read: ENOSYS makes glibc fall back to clone.
const CLONE3 = 435;

const AUDIT_ARCH_X86_64 = 0xc000_003e;
const AUDIT_ARCH_AARCH64 = 0xc000_00b7;
// x86_64's x32 ABI numbers have this bit set and a table of their own: refused as a whole.
const X32_SYSCALL_BIT = 0x4000_0000;

const EPERM = 1;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff_0000;
const RET_ERRNO = 0x0005_0000;
const RET_KILL_PROCESS = 0x8000_0000;

// Classic BPF opcodes (linux/filter.h) and the offsets of struct seccomp_data.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16; // args[0], low 32 bits on a little-endian machine (x86_64, aarch64)

type Instruction =
  | { readonly op: number; readonly k: number }
  | { readonly op: number; readonly k: number; readonly ifTrue: string; readonly ifFalse?: string }
  | { readonly label: string };

/**
 * The filter as bytes of `struct sock_filter[]`, ready to be read by bwrap from a descriptor.
 * Per architecture: load the call number, refuse (EPERM) the listed calls, clone with a
 * namespace flag and an AF_VSOCK socket, answer clone3 with ENOSYS, allow the rest. An unknown architecture (or
 * x86_64's x32 ABI) is killed: its numbers mean other calls.
 */
export function seccompFilter(): Buffer {
  const program: Instruction[] = [
    { op: LD_W_ABS, k: OFFSET_ARCH },
    { op: JEQ_K, k: AUDIT_ARCH_X86_64, ifTrue: "x86_64" },
    { op: JEQ_K, k: AUDIT_ARCH_AARCH64, ifTrue: "aarch64" },
    { op: RET_K, k: RET_KILL_PROCESS },
  ];
  for (const arch of ["x86_64", "aarch64"] as const) {
    program.push({ label: arch }, { op: LD_W_ABS, k: OFFSET_NR });
    if (arch === "x86_64") program.push({ op: JGE_K, k: X32_SYSCALL_BIT, ifTrue: "kill" });
    for (const call of REFUSED_SYSCALLS) program.push({ op: JEQ_K, k: call[arch], ifTrue: "eperm" });
    program.push(
      { op: JEQ_K, k: CLONE3, ifTrue: "enosys" },
      { op: JEQ_K, k: OPENAT2, ifTrue: "enosys" },
      { op: JEQ_K, k: CLONE[arch], ifTrue: "clone" },
      { op: JEQ_K, k: SOCKET[arch], ifTrue: "socket" },
    );
    for (const call of MODE_SETTING_CALLS) {
      const number = call[arch];
      if (number !== undefined) program.push({ op: JEQ_K, k: number, ifTrue: `mode-${arch}-${call.name}` });
    }
    program.push({ op: RET_K, k: RET_ALLOW });
    for (const call of MODE_SETTING_CALLS) {
      if (call[arch] === undefined) continue;
      program.push({ label: `mode-${arch}-${call.name}` });
      if (call.flagsArg !== undefined) {
        program.push(
          { op: LD_W_ABS, k: argLow(call.flagsArg) },
          { op: JSET_K, k: CREATING_FLAGS, ifTrue: `mode-${arch}-${call.name}-check`, ifFalse: "allow" },
          { label: `mode-${arch}-${call.name}-check` },
        );
      }
      program.push(
        { op: LD_W_ABS, k: argLow(call.modeArg) },
        { op: JSET_K, k: SET_ID_BITS, ifTrue: "eperm" },
        { op: RET_K, k: RET_ALLOW },
      );
    }
  }
  program.push(
    { label: "socket" },
    { op: LD_W_ABS, k: OFFSET_ARG0_LOW },
    { op: JEQ_K, k: AF_VSOCK, ifTrue: "eperm" },
    { op: RET_K, k: RET_ALLOW },
  );
  program.push(
    { label: "clone" },
    { op: LD_W_ABS, k: OFFSET_ARG0_LOW },
    { op: JSET_K, k: CLONE_NAMESPACE_FLAGS, ifTrue: "eperm" },
    { op: RET_K, k: RET_ALLOW },
    { label: "eperm" },
    { op: RET_K, k: RET_ERRNO | EPERM },
    { label: "enosys" },
    { op: RET_K, k: RET_ERRNO | ENOSYS },
    { label: "kill" },
    { op: RET_K, k: RET_KILL_PROCESS },
    { label: "allow" },
    { op: RET_K, k: RET_ALLOW },
  );
  return assemble(program);
}

/** The offset in struct seccomp_data of args[index]'s low 32 bits (little-endian). */
function argLow(index: number): number {
  return OFFSET_ARG0_LOW + 8 * index;
}

/** Resolves labels to the relative jumps of classic BPF (at most 255 forward) and encodes. */
function assemble(program: readonly Instruction[]): Buffer {
  const at = new Map<string, number>();
  const code: Exclude<Instruction, { label: string }>[] = [];
  for (const instruction of program) {
    if ("label" in instruction) at.set(instruction.label, code.length);
    else code.push(instruction);
  }
  const bytes = Buffer.alloc(code.length * 8);
  code.forEach((instruction, index) => {
    const jump = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const offset = (at.get(label) ?? -1) - index - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${label} out of range (${offset})`);
      return offset;
    };
    bytes.writeUInt16LE(instruction.op, index * 8);
    bytes.writeUInt8("ifTrue" in instruction ? jump(instruction.ifTrue) : 0, index * 8 + 2);
    bytes.writeUInt8("ifFalse" in instruction ? jump(instruction.ifFalse) : 0, index * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return bytes;
}
