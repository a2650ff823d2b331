// Classifies a shell command line as read-only, write or destructive, for the permission
// checks of shell-like tools. It fails closed by construction: a command is `read` only when it
// matches a shape in the allow-list of read-only commands (read-only-commands.ts); everything
// else is at least `write`, and deny rules raise recoverable-looking harm to `destructive`. It
// parses in linear time and bounded depth, never throws, and never runs or expands anything.

import { posix } from "node:path";
import { hasReadOnlyShape, isPlainVariableName, readOnlyProblem } from "./read-only-commands.js";
import {
  checkDepth,
  NestingTooDeepError,
  parseShell,
  type Redirect,
  type Script,
  type Statement,
  type Word,
} from "./shell-syntax.js";

/** How much harm a command line can do, from least to most severe. */
export type CommandRisk = "read" | "write" | "destructive";

/** The verdict on one command line. */
export interface CommandClassification {
  /** The most severe risk over every command in the line, including nested ones. */
  readonly risk: CommandRisk;
  /**
   * Human-readable reasons, deduplicated, in the order found, e.g. `rm -r deletes
   * recursively`. Non-empty for every write or destructive verdict; empty for a read verdict,
   * except `["empty"]` for a blank line.
   */
  readonly reasons: readonly string[];
  /**
   * The program names found, after stripping wrappers (sudo, env, nice, timeout, nohup, xargs,
   * command, exec …) and assignments, in order of appearance; a command comes before the
   * commands substituted into its arguments. Names run through `sh -c`, `find -exec` and the
   * like are included; a command name computed at run time is not.
   */
  readonly commands: readonly string[];
}

/**
 * Classifies a shell command line by what it may do: `read` (only reads or prints), `write`
 * (anything not proven read-only: changes files, the network or the system, or runs code that
 * is not analyzed) or `destructive` (irrecoverable loss, root writes, code downloaded and run).
 *
 * Read means: every command matches the allow-list of read-only shapes (program, permitted
 * options, checked operands), every assignment is to a plain lower-case variable, every
 * redirection writes nowhere (or to /dev/null), and no construct evaluates code hidden in a
 * value. So these are write, though they look harmless: upper-case assignments (`FOO=1 ls`:
 * PATH, LD_PRELOAD, BASH_ENV, GIT_CONFIG_* and PAGER are upper case), arithmetic over
 * variables (`(( x ))`, `$((i+1))`, `[[ $x -eq 1 ]]`: bash evaluates a value `a[$(cmd)]` and
 * runs cmd), `declare`/`let`/`export`/`printf -v`, an option that may appear at run time
 * (`rg $x`, `cmd *` where a file is named `--pre=sh`), reads under /proc, and a line that
 * names /proc, an environ file or bash's /dev/tcp and /dev/udp anywhere (an assignment's value,
 * a for list, a here-string), as well as an input redirection from a computed path.
 *
 * Decisions where the rules could go either way:
 * - An empty or blank line is `read` with the reason `"empty"`.
 * - Unknown programs, scripts and interpreters (python, node …) are `write`: never read-only.
 * - `sudo`, `doas` and `su` raise a wrapped write to destructive; a wrapped read stays read.
 * - `rm file` is write; `rm -r`, `rm -f`, globs, computed paths, `/`, `~`, system paths and
 *   arguments supplied at run time (`xargs rm`, `find -exec rm`) are destructive.
 * - `curl` and `wget` are write even for a plain GET: they can upload as easily as download.
 *   Their output piped into an interpreter (`curl … | sh`) is destructive.
 * - `eval` and `sh -c` with literal text are classified recursively, eval at least write; with
 *   text computed at run time, or a computed command name (`$CMD args`), they are destructive.
 * - Writing to /dev/null, /dev/stdout, /dev/stderr, /dev/tty or /dev/fd/N stays read; writing
 *   under /, /etc, /boot, /dev, /usr, /bin, /sbin, /lib*, /sys, /proc, /root, /System, or
 *   to shell start-up files, ~/.ssh, ~/.gnupg, ~/.aws or ~/.gitconfig, is destructive.
 * - Unparseable input (an unterminated quote or substitution) is at least write.
 * - Nesting of subshells, substitutions and `sh -c` deeper than 8 is destructive.
 *
 * Limits: relative paths are not resolved (the working directory is unknown), so
 * `../../etc/passwd` counts as an ordinary path; `git` reads the repository's own
 * `.git/config`, which can name programs (core.fsmonitor), so run shell tools in the sandbox
 * (createShellTool) rather than trusting `read` alone; `>` inside `[[ ]]` or an awk program
 * counts as a write. Time is linear in the input length; input longer than
 * MAX_ANALYZED_LENGTH (2 KiB) is write unparsed, so it is asked, never allowed.
 */
export function classifyCommand(commandLine: string): CommandClassification {
  if (commandLine.trim() === "") return { risk: "read", reasons: ["empty"], commands: [] };
  if (commandLine.length > MAX_ANALYZED_LENGTH) {
    return {
      risk: "write",
      reasons: [`command line longer than ${MAX_ANALYZED_LENGTH} characters is not analyzed: it needs approval`],
      commands: [],
    };
  }
  try {
    const findings = analyzeText(commandLine, 0, false, newContext());
    flagSecretSpellings(commandLine, findings);
    return {
      risk: findings.risk,
      reasons: [...new Set(findings.reasons)],
      commands: findings.commands,
    };
  } catch (error) {
    if (error instanceof NestingTooDeepError) {
      return { risk: "destructive", reasons: ["nesting too deep"], commands: [] };
    }
    // The contract is to never throw: a bug here must fail closed, not open.
    return { risk: "destructive", reasons: ["command line could not be analyzed"], commands: [] };
  }
}

/**
 * Longest line parsed. The parser costs 1 to 10 µs a character on these machines (mvdan-sh is
 * a GopherJS build: ~1 µs a character at best, several times that while it collects garbage), and
 * classification runs on the event loop: 2 KiB keeps a check within a few milliseconds.
 */
export const MAX_ANALYZED_LENGTH = 2048;

// dash reads a carriage return or another control character as part of a word; a parser may
// take it for a blank. A line with one is never proven read-only.
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f]/;
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

// A path component `proc` (`/proc/`, `proc/1`), a file named `environ`, or bash's network
// pseudo-files, anywhere in the line. Preceded by a character that cannot continue a name, so
// `coproc`, `process/` and `environment` do not count.
const SECRET_SPELLING = /(?:^|[^A-Za-z0-9_.-])(?:proc\/|environ(?![A-Za-z0-9_.-])|dev\/(?:tcp|udp)\/)/;

/**
 * Raises to `write` a line that spells another process's secrets (/proc, environ) or a network
 * connection (/dev/tcp, /dev/udp) anywhere: in an assignment's value, a for list, a here-string
 * or a here-document, which become paths at run time where the operand checks do not see them.
 */
function flagSecretSpellings(commandLine: string, findings: Findings): void {
  const match = SECRET_SPELLING.exec(commandLine);
  if (match === null) return;
  const at = match.index + match[0].length - (match[0].endsWith("/") ? 1 : 0);
  const spelled = commandLine.slice(Math.max(0, at - 12), at + 12).trim();
  findings.flag(
    "write",
    `the line names /proc, an environ file or /dev/tcp|udp (…${spelled}…): read through a value, it is another process's secrets or a network connection`,
  );
}

const RISK_ORDER: Readonly<Record<CommandRisk, number>> = { read: 0, write: 1, destructive: 2 };

// ---------------------------------------------------------------------------------------
// Findings

class Findings {
  risk: CommandRisk = "read";
  readonly reasons: string[] = [];
  readonly commands: string[] = [];
  /** Something in here fetches from the network, so its output may be downloaded code. */
  network = false;

  flag(risk: CommandRisk, reason: string): void {
    if (RISK_ORDER[risk] > RISK_ORDER[this.risk]) this.risk = risk;
    if (risk !== "read") this.reasons.push(reason);
  }

  merge(other: Findings): void {
    if (RISK_ORDER[other.risk] > RISK_ORDER[this.risk]) this.risk = other.risk;
    // Loops, not spread: a hostile line can produce more entries than spread arguments allow.
    for (const reason of other.reasons) this.reasons.push(reason);
    for (const command of other.commands) this.commands.push(command);
    this.network ||= other.network;
  }
}

interface Context {
  /** Names of the functions whose bodies are being read: a call to one of them is recursion. */
  readonly openFunctions: Map<string, number>;
}

function newContext(): Context {
  return { openFunctions: new Map() };
}

/** Parses `text` as POSIX sh (the dialect of the dash that runs it) and classifies the tree. */
function analyzeText(text: string, depth: number, argumentsUnknown: boolean, context: Context): Findings {
  checkDepth(depth);
  if (text.length > MAX_ANALYZED_LENGTH) {
    const findings = new Findings();
    findings.flag("write", `nested command text longer than ${MAX_ANALYZED_LENGTH} characters is not analyzed`);
    return findings;
  }
  // Each control character is parsed as a letter, which is how dash reads it: `true\r# ; rm -rf x`
  // is the command `true\r#` and then rm, never a comment.
  const hasControl = CONTROL_CHARACTER.test(text);
  const { script, problem } = parseShell(hasControl ? text.replace(CONTROL_CHARACTERS, "_") : text);
  const findings = analyzeScript(script, depth, argumentsUnknown, context);
  if (problem !== undefined) findings.flag("write", problem);
  if (hasControl) {
    findings.flag("write", "a carriage return or control character: dash reads it as part of a word, not as a blank");
  }
  return findings;
}

// ---------------------------------------------------------------------------------------
// The syntax tree: statements, pipelines, compound commands, functions

interface StageResult {
  readonly findings: Findings;
  /** This stage's output may carry content fetched from the network. */
  readonly network: boolean;
  /** This stage runs whatever arrives on its standard input as code. */
  readonly readsStdinAsCode: string | undefined;
}

function analyzeScript(script: Script, depth: number, argumentsUnknown: boolean, context: Context): Findings {
  checkDepth(depth);
  const findings = new Findings();
  for (const statement of script)
    findings.merge(analyzeStatement(statement, depth, argumentsUnknown, context).findings);
  return findings;
}

/** Flags what the shell evaluates in a word: its substitutions and unproven expansions. */
function analyzeWordParts(word: Word, depth: number, context: Context, into: Findings): void {
  for (const problem of word.problems) into.flag("write", problem);
  for (const substitution of word.substitutions) into.merge(analyzeScript(substitution, depth + 1, false, context));
}

function analyzeStatement(
  statement: Statement,
  depth: number,
  argumentsUnknown: boolean,
  context: Context,
): StageResult {
  const findings = new Findings();
  const nested = new Findings();
  for (const redirect of statement.redirects) {
    if (redirect.target !== undefined) analyzeWordParts(redirect.target, depth, context, nested);
    if (redirect.heredoc !== undefined) analyzeWordParts(redirect.heredoc, depth, context, nested);
    classifyRedirect(redirect, findings);
  }
  const done = (result: StageResult): StageResult => {
    // A command comes before the commands substituted into its words.
    findings.merge(result.findings);
    findings.merge(nested);
    return { findings, network: result.network || nested.network, readsStdinAsCode: result.readsStdinAsCode };
  };
  const { command } = statement;
  switch (command.kind) {
    case "simple": {
      for (const word of command.words) analyzeWordParts(word, depth, context, nested);
      if (command.words.length === 0)
        return done({ findings: new Findings(), network: false, readsStdinAsCode: undefined });
      const stdinRedirect = statement.redirects
        .filter((redirect) => (redirect.fd === "" || redirect.fd === "0") && redirect.operator.startsWith("<"))
        .at(-1);
      const result = classifySimpleCommand(command.words, {
        depth,
        context,
        argumentsUnknown,
        stdinRedirect,
        substitutionNetwork: nested.network,
      });
      return done(result);
    }
    case "pipeline": {
      const inner = new Findings();
      let networkUpstream = false;
      for (const stage of command.stages) {
        const result = analyzeStatement(stage, depth, argumentsUnknown, context);
        inner.merge(result.findings);
        if (result.readsStdinAsCode !== undefined && networkUpstream) {
          inner.flag("destructive", `piping network content into ${result.readsStdinAsCode} runs downloaded code`);
        }
        networkUpstream ||= result.network;
      }
      return done({ findings: inner, network: inner.network, readsStdinAsCode: undefined });
    }
    case "list": {
      const inner = new Findings();
      for (const part of command.statements)
        inner.merge(analyzeStatement(part, depth, argumentsUnknown, context).findings);
      return done({ findings: inner, network: inner.network, readsStdinAsCode: undefined });
    }
    case "group": {
      const inner = analyzeScript(command.body, depth + 1, argumentsUnknown, context);
      return done({ findings: inner, network: inner.network, readsStdinAsCode: undefined });
    }
    case "compound": {
      const inner = new Findings();
      // The header is evaluated too: `for x in $(cmd)`, `case $(cmd) in`, the patterns.
      for (const word of command.header) analyzeWordParts(word, depth, context, inner);
      if (command.loopVariable !== undefined && !isPlainVariableName(command.loopVariable)) {
        inner.flag(
          "write",
          `for ${command.loopVariable} assigns an upper-case variable, which configures programs (PATH, LD_PRELOAD …)`,
        );
      }
      for (const body of command.bodies) inner.merge(analyzeScript(body, depth + 1, argumentsUnknown, context));
      return done({ findings: inner, network: inner.network, readsStdinAsCode: undefined });
    }
    case "function": {
      // A definition anywhere (even in a branch that never runs) changes what later names mean.
      const inner = new Findings();
      inner.flag("write", `defines a function ${command.name}, which changes what the name runs`);
      context.openFunctions.set(command.name, (context.openFunctions.get(command.name) ?? 0) + 1);
      try {
        inner.merge(analyzeStatement(command.body, depth + 1, argumentsUnknown, context).findings);
      } finally {
        context.openFunctions.set(command.name, (context.openFunctions.get(command.name) ?? 1) - 1);
      }
      return done({ findings: inner, network: inner.network, readsStdinAsCode: undefined });
    }
  }
}

function classifyRedirect(redirect: Redirect, findings: Findings): void {
  const { operator: op, target } = redirect;
  const label = `redirection ${redirect.fd}${op}`;
  if (op === "<<" || op === "<<-") return;
  if (target === undefined) {
    findings.flag("write", `${label} has no target: cannot be parsed reliably`);
    return;
  }
  // `<&…` only reads; `>&2`, `2>&1`, `>&-` duplicate or close descriptors and open no file.
  if (op === "<&") return;
  if (op === "<") {
    if (target.text.split("/").some((component) => component === "proc" || component === "environ")) {
      findings.flag("write", `${label} reads process information under /proc (${target.text})`);
    } else if (/^\/dev\/(?:tcp|udp)\//.test(target.text)) {
      findings.flag("write", `${label} opens a network connection (${target.text})`);
    } else if (target.dynamic) {
      // bash opens /dev/tcp/host/port as a connection, and the value may name /proc/<pid>/environ.
      findings.flag("write", `${label} reads ${target.text}, a path computed at run time`);
    }
    return;
  }
  if (op === ">&" && /^(?:[0-9]+-?|-)$/.test(target.text) && !target.dynamic) return;
  if (/^\/dev\/(?:tcp|udp)\//.test(target.text)) {
    findings.flag("write", `${label} opens a network connection (${target.text})`);
    return;
  }
  classifyWriteTarget(findings, target.text, target.dynamic, label);
}

// ---------------------------------------------------------------------------------------
// Paths

const SYSTEM_DIRECTORIES = new Set("etc boot dev usr bin sbin lib lib32 lib64 libx32 sys proc root System".split(" "));
const SENSITIVE_HOME_ENTRIES = new Set(
  ".bashrc .bash_profile .bash_login .profile .zshrc .zprofile .zshenv .zlogin .ssh .gnupg .aws .gitconfig".split(" "),
);
const DISCARD_PATHS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

type PathKind = "discard" | "protected" | "ordinary";

function classifyPath(text: string): PathKind {
  if (DISCARD_PATHS.has(text) || /^\/dev\/fd\/[0-9]+$/.test(text)) return "discard";
  if (text.startsWith("~")) {
    // ~user/… is another account's home: never ours to write.
    if (text !== "~" && !text.startsWith("~/")) return "protected";
    const normalized = posix.normalize(text.slice(2) || ".");
    if (normalized === "." || normalized === "./" || normalized.startsWith("..")) return "protected";
    return SENSITIVE_HOME_ENTRIES.has(normalized.split("/")[0] ?? "") ? "protected" : "ordinary";
  }
  if (!text.startsWith("/")) return "ordinary";
  const normalized = posix.normalize(text);
  if (normalized === "/") return "protected";
  if (DISCARD_PATHS.has(normalized)) return "discard";
  const top = normalized.split("/")[1] ?? "";
  if (top === "dev" && (normalized === "/dev/shm" || normalized.startsWith("/dev/shm/"))) return "ordinary";
  return SYSTEM_DIRECTORIES.has(top) ? "protected" : "ordinary";
}

/** Flags a file the command writes: /dev/null is harmless, system paths are destructive. */
function classifyWriteTarget(findings: Findings, text: string, dynamic: boolean, label: string): void {
  if (dynamic) {
    findings.flag("write", `${label} writes ${text}, a path computed at run time`);
    return;
  }
  const kind = classifyPath(text);
  if (kind === "discard") return;
  findings.flag(kind === "protected" ? "destructive" : "write", `${label} writes ${text}`);
}

// ---------------------------------------------------------------------------------------
// Simple commands

interface StageEnvironment {
  readonly depth: number;
  readonly context: Context;
  readonly argumentsUnknown: boolean;
  readonly stdinRedirect: Redirect | undefined;
  readonly substitutionNetwork: boolean;
}

interface CommandResult {
  readonly findings: Findings;
  readonly network: boolean;
  readonly readsStdinAsCode: string | undefined;
}

/** What a deny rule sees of one command, after wrappers and assignments are stripped. */
interface Call {
  readonly name: string;
  readonly args: readonly Word[];
  readonly findings: Findings;
  readonly environment: StageEnvironment;
  readonly argumentsUnknown: boolean;
  network: boolean;
  readsStdinAsCode: string | undefined;
}

/** The name a word assigns (`name=…`, `name+=…`, `name[i]=…`, subscript kept), or undefined. */
function assignmentName(word: Word): string | undefined {
  const equals = word.text.indexOf("=");
  if (equals <= 0 || equals >= word.unquotedPrefixLength) return undefined;
  const name = word.text.slice(0, equals).replace(/\+$/, "");
  return /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?$/.test(name) ? name : undefined;
}

function flagAssignment(word: Word, findings: Findings): void {
  const name = assignmentName(word);
  if (name !== undefined && !isPlainVariableName(name)) {
    findings.flag(
      "write",
      name.includes("[")
        ? `assignment to ${name}: an array subscript is evaluated as arithmetic, which can run commands`
        : `assignment to ${name}: upper-case variables configure programs (PATH, LD_PRELOAD, BASH_ENV, GIT_CONFIG_*, PAGER …)`,
    );
  }
}

function programName(text: string): string {
  if (!text.includes("/")) return text;
  // Only the standard locations are trusted to hold the real program: `./ls` may be anything.
  const match = /^(?:\/usr\/local|\/usr|\/opt\/homebrew)?\/s?bin\/([^/]+)$/.exec(text);
  return match?.[1] ?? text;
}

/**
 * Reads a wrapper's options from `start`: the flags as written (`-u`, `--user`) and the index
 * of the wrapped command. `valueLetters` and `valueLongs` take a value in the next word when
 * not attached.
 */
function wrapperOptions(
  words: readonly Word[],
  start: number,
  valueLetters: string,
  valueLongs: readonly string[] = [],
): { flags: string[]; next: number } {
  const flags: string[] = [];
  let index = start;
  while (index < words.length) {
    const word = words[index] as Word;
    const text = word.text;
    if (word.dynamic) break;
    if (text === "--") return { flags, next: index + 1 };
    if (text.startsWith("--")) {
      const name = text.split("=")[0] ?? text;
      flags.push(name);
      index += !text.includes("=") && valueLongs.includes(name) ? 2 : 1;
    } else if (text.startsWith("-") && text.length > 1) {
      index++;
      for (let position = 1; position < text.length; position++) {
        const letter = text.charAt(position);
        flags.push(`-${letter}`);
        if (valueLetters.includes(letter)) {
          if (position === text.length - 1) index++;
          break;
        }
      }
    } else break;
  }
  return { flags, next: index };
}

/** Skips options from `index` and returns the index of the first operand; see wrapperOptions. */
function skipOptions(
  args: readonly Word[],
  index: number,
  valueLetters: string,
  valueLongs: readonly string[] = [],
): number {
  return wrapperOptions(args, index, valueLetters, valueLongs).next;
}

/** Values of the given short letters and long options, attached or separate, with dynamism. */
function optionValues(
  args: readonly Word[],
  valueLetters: string,
  wantedLetters: string,
  wantedLongs: readonly string[],
): { text: string; dynamic: boolean }[] {
  const values: { text: string; dynamic: boolean }[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index];
    if (word === undefined) break;
    const text = word.text;
    if (text === "--") break;
    if (text.startsWith("--")) {
      const [name = "", ...value] = text.split("=");
      if (!wantedLongs.includes(name)) continue;
      if (value.length > 0) values.push({ text: value.join("="), dynamic: word.dynamic });
      else {
        const next = args[index + 1];
        if (next !== undefined) values.push({ text: next.text, dynamic: next.dynamic });
        index++;
      }
    } else if (text.startsWith("-") && text.length > 1) {
      for (let position = 1; position < text.length; position++) {
        const letter = text.charAt(position);
        if (!valueLetters.includes(letter)) continue;
        let value: { text: string; dynamic: boolean } | undefined;
        if (position < text.length - 1) value = { text: text.slice(position + 1), dynamic: word.dynamic };
        else {
          const next = args[index + 1];
          if (next !== undefined) value = { text: next.text, dynamic: next.dynamic };
          index++;
        }
        if (wantedLetters.includes(letter) && value !== undefined) values.push(value);
        break;
      }
    }
  }
  return values;
}

/** Non-option operands, skipping the values of `valueLetters` options. */
function operands(args: readonly Word[], valueLetters: string, valueLongs: readonly string[] = []): Word[] {
  const result: Word[] = [];
  let index = 0;
  while (index < args.length) {
    const next = skipOptions(args, index, valueLetters, valueLongs);
    const afterDoubleDash = args[next - 1]?.text === "--" && next > index;
    if (afterDoubleDash) {
      for (const word of args.slice(next)) result.push(word);
      return result;
    }
    const word = args[next];
    if (word === undefined) return result;
    result.push(word);
    index = next + 1;
  }
  return result;
}

function hasFlag(args: readonly Word[], letters: string, longs: readonly string[] = []): boolean {
  for (const word of args) {
    const text = word.text;
    if (text === "--") return false;
    if (text.startsWith("--")) {
      if (longs.includes(text.split("=")[0] ?? "")) return true;
    } else if (/^-[A-Za-z0-9]+$/.test(text)) {
      for (const letter of letters) if (text.includes(letter)) return true;
    }
  }
  return false;
}

/** Options of each wrapper that keep a wrapped read a read; any other option makes it write. */
const WRAPPER_READ_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  sudo: ["-u", "-g", "-n", "-H", "--user", "--group", "--non-interactive", "--set-home"],
  doas: ["-u", "-n"],
  // `nice -10` reads as the flags -1 and -0.
  nice: ["-n", "--adjustment", ..."0123456789".split("").map((digit) => `-${digit}`)],
  ionice: ["-c", "-n", "-t", "--class", "--classdata", "--ignore"],
  timeout: ["-s", "-k", "-v", "--signal", "--kill-after", "--preserve-status", "--foreground", "--verbose"],
  setsid: ["-c", "-f", "-w", "--ctty", "--fork", "--wait"],
  stdbuf: ["-i", "-o", "-e", "--input", "--output", "--error"],
  command: ["-p"],
  exec: ["-a", "-c", "-l"],
  time: ["-p", "-v", "-f", "--format", "--portability", "--verbose", "--quiet"],
  xargs: [
    ..."-0 -r -t -x -p -d -E -I -L -n -P -s -a -i -l -e".split(" "),
    ..."--null --delimiter --max-args --max-procs --max-chars --arg-file --no-run-if-empty --verbose --exit".split(" "),
    ..."--interactive --open-tty --replace --max-lines --eof --show-limits".split(" "),
  ],
};

function flagWrapperOptions(name: string, flags: readonly string[], findings: Findings): void {
  const allowed = WRAPPER_READ_OPTIONS[name] ?? [];
  for (const flag of flags) {
    if (!allowed.includes(flag)) findings.flag("write", `${name} option ${flag} is not known to be read-only`);
  }
}

function classifySimpleCommand(words: readonly Word[], environment: StageEnvironment): CommandResult {
  const findings = new Findings();
  const { context } = environment;
  let index = 0;
  let elevated = false;
  let argumentsUnknown = environment.argumentsUnknown;
  const finish = (network = false, readsStdinAsCode: string | undefined = undefined): CommandResult => ({
    findings,
    network,
    readsStdinAsCode,
  });

  while (index < words.length && assignmentName(words[index] as Word) !== undefined) {
    flagAssignment(words[index] as Word, findings);
    index++;
  }

  // Wrappers run the rest of the words as a command: strip them in a loop over absolute
  // indices, never slicing the remainder, so `sudo sudo sudo …` stays linear.
  // The last wrapper stripped: after xargs, a wrapper with no command of its own wraps one xargs
  // reads from its input (`echo "sh -c …" | xargs nice`).
  let lastWrapper: string | undefined;
  for (;;) {
    const word = words[index];
    if (word === undefined) {
      if (argumentsUnknown && lastWrapper !== undefined && lastWrapper !== "xargs") {
        findings.flag("write", `${lastWrapper} runs a command xargs reads from its input, which is not analyzed`);
      }
      return finish();
    }
    if (word.dynamic || word.glob) {
      findings.flag("destructive", `command name ${word.text} is computed at run time and cannot be analyzed`);
      return finish();
    }
    const name = programName(word.text);
    const start = index + 1;
    let next: number;
    if (name === "sudo" || name === "doas") {
      const options = wrapperOptions(words, start, name === "sudo" ? "ugCDprtTUhR" : "uC", [
        "--user",
        "--group",
        "--close-from",
        "--chdir",
        "--prompt",
        "--role",
        "--type",
        "--command-timeout",
        "--other-user",
        "--host",
      ]);
      next = options.next;
      if (options.flags.some((flag) => flag === "-e" || flag === "--edit")) {
        findings.flag("destructive", `${name} -e edits files as root`);
        return finish();
      }
      const shell = options.flags.some((flag) => ["-s", "-i", "--shell", "--login"].includes(flag));
      if (next >= words.length && shell) findings.flag("destructive", `${name} without a command opens a root shell`);
      flagWrapperOptions(name, options.flags, findings);
      elevated = true;
    } else if (name === "env") {
      next = start;
      for (; next < words.length; next++) {
        const argument = words[next] as Word;
        const text = argument.text;
        if (argument.dynamic) break;
        const splitString = /^-[iv0]*S/.test(text) || text === "--split-string" || text.startsWith("--split-string=");
        if (splitString) {
          // env -S splits one string into a command line of its own.
          const inline = text.startsWith("--split-string=")
            ? text.slice("--split-string=".length)
            : text.endsWith("S") || text === "--split-string"
              ? (words[++next]?.text ?? "")
              : text.slice(text.indexOf("S") + 1);
          const remainder = words
            .slice(next + 1)
            .map((rest) => rest.text)
            .join(" ");
          findings.flag("write", "env -S splits a string into a command line, which is not analyzed as written");
          findings.merge(analyzeText(`${inline} ${remainder}`, environment.depth + 1, argumentsUnknown, context));
          return finish();
        }
        if (text === "-u" || text === "--unset") next++;
        else if (text.startsWith("--unset=")) continue;
        else if (text === "-C" || text === "--chdir" || text.startsWith("--chdir=")) {
          findings.flag("write", "env -C runs the command in another folder");
          if (!text.includes("=")) next++;
        } else if (/^-[i0v]*$/.test(text) || ["--ignore-environment", "--null", "--debug"].includes(text)) continue;
        else if (text.startsWith("-")) findings.flag("write", `env option ${text} is not known to be read-only`);
        else if (assignmentName(argument) !== undefined) flagAssignment(argument, findings);
        else break;
      }
    } else if (name === "nice" || name === "ionice") {
      const options = wrapperOptions(words, start, name === "nice" ? "n" : "cnpPu", [
        "--adjustment",
        "--class",
        "--classdata",
        "--pid",
        "--pgid",
        "--uid",
      ]);
      next = options.next;
      if (
        name === "ionice" &&
        options.flags.some((flag) => ["-p", "-P", "-u", "--pid", "--pgid", "--uid"].includes(flag))
      ) {
        findings.flag("write", "ionice -p changes the I/O priority of running processes");
        return finish();
      }
      flagWrapperOptions(name, options.flags, findings);
    } else if (name === "timeout") {
      const options = wrapperOptions(words, start, "sk", ["--signal", "--kill-after"]);
      flagWrapperOptions(name, options.flags, findings);
      // The first operand is the duration; the command follows it.
      next = options.next + 1;
    } else if (name === "nohup" || name === "builtin" || name === "coproc") {
      next = start;
    } else if (name === "setsid" || name === "stdbuf" || name === "exec") {
      const options = wrapperOptions(words, start, name === "stdbuf" ? "ioe" : name === "exec" ? "a" : "", [
        "--input",
        "--output",
        "--error",
      ]);
      // `exec >log` only redirects the shell's own descriptors, classified with the stage.
      flagWrapperOptions(name, options.flags, findings);
      next = options.next;
    } else if (name === "command") {
      const options = wrapperOptions(words, start, "");
      if (options.flags.includes("-v") || options.flags.includes("-V")) return finish();
      flagWrapperOptions(name, options.flags, findings);
      next = options.next;
    } else if (name === "time") {
      const options = wrapperOptions(words, start, "fo", ["--format", "--output"]);
      next = options.next;
      for (const target of optionValues(words.slice(start, next), "fo", "o", ["--output"])) {
        classifyWriteTarget(findings, target.text, target.dynamic, "time -o");
      }
      flagWrapperOptions(name, options.flags, findings);
    } else if (name === "xargs") {
      const options = wrapperOptions(words, start, "ILnPdEsa", [
        "--max-args",
        "--max-procs",
        "--delimiter",
        "--max-chars",
        "--arg-file",
        "--process-slot-var",
      ]);
      flagWrapperOptions(name, options.flags, findings);
      next = options.next;
      // With no command xargs runs echo, which only prints.
      argumentsUnknown = true;
    } else {
      break;
    }
    // A value the wrapper took (timeout's duration, nice -n, xargs -n) that the shell splits, or a
    // pattern it expands, may hold the wrapped command itself: `timeout $x ls` with x='5 sh -c …'.
    for (let at = start; at < next && at < words.length; at++) {
      const value = words[at] as Word;
      if (value.splits || value.glob) {
        findings.flag(
          "write",
          `${name} gets ${value.text}, which the shell expands into several words, a command among them`,
        );
      }
    }
    lastWrapper = name;
    index = next;
  }

  const nameWord = words[index] as Word;
  const name = normalizeProgram(programName(nameWord.text));
  findings.commands.push(programName(nameWord.text));
  const commandFindings = new Findings();
  const call: Call = {
    name,
    args: words.slice(index + 1),
    findings: commandFindings,
    environment,
    argumentsUnknown,
    network: false,
    readsStdinAsCode: undefined,
  };

  if ((context.openFunctions.get(nameWord.text) ?? 0) > 0) {
    commandFindings.flag("destructive", `function ${nameWord.text} calls itself: a fork bomb or unbounded recursion`);
  }
  DENY_RULES.get(name)?.(call);
  if (DESTRUCTIVE.has(name) || name.startsWith("mkfs")) {
    commandFindings.flag("destructive", `${name} ${DESTRUCTIVE.get(name) ?? "formats a file system"}`);
  }
  if (NETWORK.has(name)) {
    commandFindings.flag("write", `${name} accesses the network`);
    call.network = true;
  }
  // The allow-list decides read; a deny rule that already found harm has said why.
  if (commandFindings.risk === "read") {
    const reason = hasReadOnlyShape(name)
      ? readOnlyProblem({ name, args: call.args, argumentsUnknown })
      : (STATE_BUILTINS.get(name) ??
        (KNOWN_WRITE.has(name) ? `${name} can change files or system state` : `unknown command "${nameWord.text}"`));
    if (reason !== undefined) commandFindings.flag("write", reason);
  }

  if (elevated && commandFindings.risk === "write") {
    commandFindings.flag("destructive", `sudo runs ${name} with elevated privileges: write escalated to destructive`);
  }
  findings.merge(commandFindings);
  findings.network ||= call.network;
  return finish(call.network, call.readsStdinAsCode);
}

function normalizeProgram(name: string): string {
  if (/^python[0-9.]*$/.test(name)) return "python";
  if (/^pip[0-9.]*$/.test(name)) return "pip";
  return name;
}

// ---------------------------------------------------------------------------------------
// Command tables: what is never read, with the reason a person is shown

const STATE_BUILTINS = new Map<string, string>(
  "export declare typeset local readonly let alias unalias mapfile readarray getopts enable"
    .split(" ")
    .map((name) => [
      name,
      `${name} changes the shell's variables or commands (and may evaluate arithmetic, which can run commands)`,
    ]),
);

const DESTRUCTIVE = new Map<string, string>([
  ["mke2fs", "formats a file system"],
  ["mkswap", "formats a swap area"],
  ["wipefs", "erases file system signatures"],
  ["fdisk", "edits partition tables"],
  ["sfdisk", "edits partition tables"],
  ["cfdisk", "edits partition tables"],
  ["parted", "edits partition tables"],
  ["gdisk", "edits partition tables"],
  ["sgdisk", "edits partition tables"],
  ["shred", "overwrites files irrecoverably"],
  ["srm", "overwrites files irrecoverably"],
  ["wipe", "overwrites files irrecoverably"],
  ["blkdiscard", "discards every block of a device"],
  ["truncate", "cuts files to a size, discarding data"],
  ["killall", "kills processes by name"],
  ["killall5", "kills every process"],
  ["pkill", "kills processes by pattern"],
  ["shutdown", "stops the machine"],
  ["reboot", "restarts the machine"],
  ["halt", "stops the machine"],
  ["poweroff", "stops the machine"],
  ["userdel", "deletes a user account"],
  ["deluser", "deletes a user account"],
  ["groupdel", "deletes a group"],
  ["sudoedit", "edits files as root"],
]);

const KNOWN_WRITE = new Set(
  (
    "make cmake ninja docker podman docker-compose kubectl helm terraform gcc g++ cc clang clang++ rustc javac " +
    "tsc esbuild vite webpack zip unzip gzip gunzip bzip2 bunzip2 xz unxz 7z split csplit patch scp open " +
    "xdg-open code vim vi nvim nano emacs ed ex service mount umount iptables ufw useradd usermod groupadd passwd " +
    "chpasswd ssh-keygen ssh-add gpg sqlite3 psql mysql redis-cli mongosh pytest jest vitest java npx bunx " +
    "pnpx chattr setfacl sysctl modprobe insmod rmmod"
  ).split(" "),
);

const NETWORK = new Set(
  "http https xh aria2c nc ncat netcat socat telnet ftp sftp tftp fetch lynx w3m ping dig nslookup host".split(" "),
);

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"]);
// Only these are analyzed as shells: the others read start-up files or treat names differently (zsh's `path`).
// The dialect parsed is POSIX sh as dash reads it: bash -c is still read for harm, never proven read-only.
const ANALYZED_SHELLS = new Set(["sh", "dash"]);
const INTERPRETERS = new Map<string, string>([
  ["python", "Python"],
  ["pypy", "Python"],
  ["pypy3", "Python"],
  ["node", "JavaScript"],
  ["nodejs", "JavaScript"],
  ["deno", "JavaScript"],
  ["bun", "JavaScript"],
  ["perl", "Perl"],
  ["ruby", "Ruby"],
  ["php", "PHP"],
  ["lua", "Lua"],
  ["luajit", "Lua"],
  ["Rscript", "R"],
  ["osascript", "AppleScript"],
  ["tclsh", "Tcl"],
  ["pwsh", "PowerShell"],
  ["powershell", "PowerShell"],
  ["irb", "Ruby"],
]);

// ---------------------------------------------------------------------------------------
// Deny rules: what makes a command destructive, files it writes, code it runs. They never
// decide `read`; that is the allow-list's job.

type DenyRule = (call: Call) => void;

const DENY_RULES = new Map<string, DenyRule>();

function deny(names: string, rule: DenyRule): void {
  for (const name of names.split(" ")) DENY_RULES.set(name, rule);
}

function nested(call: Call, text: string, argumentsUnknown = call.argumentsUnknown): Findings {
  const inner = analyzeText(text, call.environment.depth + 1, argumentsUnknown, call.environment.context);
  call.findings.merge(inner);
  return inner;
}

function flagNetworkCode(call: Call, what: string): boolean {
  if (!call.environment.substitutionNetwork) return false;
  call.findings.flag("destructive", `${call.name} runs ${what} fetched from the network`);
  return true;
}

// --- Deleting and file changes -----------------------------------------------------------

deny("rm", (call) => {
  const { args, findings } = call;
  let recursive = false;
  let force = false;
  let index = 0;
  for (; index < args.length; index++) {
    const text = (args[index] as Word).text;
    if (text === "--") {
      index++;
      break;
    }
    if (text === "--recursive") recursive = true;
    else if (text === "--force") force = true;
    else if (text === "--no-preserve-root") findings.flag("destructive", "rm --no-preserve-root may delete /");
    else if (/^-[A-Za-z]+$/.test(text)) {
      if (/[rR]/.test(text)) recursive = true;
      if (text.includes("f")) force = true;
    } else if (!text.startsWith("--")) break;
  }
  if (recursive) findings.flag("destructive", "rm -r deletes recursively");
  if (force) findings.flag("destructive", "rm -f deletes without confirmation");
  if (call.argumentsUnknown) findings.flag("destructive", "rm deletes files named at run time (xargs, find -exec)");
  const targets = args.slice(index).concat(args.slice(0, index).filter((word) => !word.text.startsWith("-")));
  for (const target of targets) {
    const text = target.text;
    if (target.dynamic) findings.flag("destructive", `rm deletes ${text}, a path computed at run time`);
    else if (target.glob) findings.flag("destructive", `rm deletes every file matching ${text}`);
    else if (text === "." || text === ".." || classifyPath(text) === "protected") {
      findings.flag("destructive", `rm deletes ${text}`);
    } else findings.flag("write", `rm deletes ${text}`);
  }
  if (findings.risk === "read") findings.flag("write", "rm deletes files");
});

deny("rmdir unlink", (call) => {
  for (const target of operands(call.args, "")) {
    const protectedPath = !target.dynamic && classifyPath(target.text) === "protected";
    call.findings.flag(protectedPath ? "destructive" : "write", `${call.name} deletes ${target.text}`);
  }
  if (call.findings.risk === "read") call.findings.flag("write", `${call.name} deletes files`);
});

deny("mkdir touch mktemp", (call) => {
  const valueLetters = call.name === "touch" ? "dtr" : call.name === "mkdir" ? "m" : "p";
  for (const target of operands(call.args, valueLetters, ["--date", "--reference", "--mode", "--tmpdir"])) {
    const protectedPath = !target.dynamic && classifyPath(target.text) === "protected";
    call.findings.flag(protectedPath ? "destructive" : "write", `${call.name} writes ${target.text}`);
  }
  if (call.findings.risk === "read") call.findings.flag("write", `${call.name} creates files`);
});

deny("cp mv ln install rsync", (call) => {
  const { name, args, findings } = call;
  const valueLetters = name === "install" ? "gmoStT" : name === "rsync" ? "efT" : "St";
  const files = operands(args, valueLetters, ["--suffix", "--target-directory", "--mode", "--owner", "--group"]);
  const explicitTargets = optionValues(args, valueLetters, "t", ["--target-directory"]);
  const destinations = explicitTargets.length > 0 ? explicitTargets : files.slice(-1);
  // mv also removes its sources, so a system path on either side is destructive.
  const checked = name === "mv" ? [...files, ...explicitTargets] : destinations;
  for (const target of checked) {
    if (!target.dynamic && classifyPath(target.text) === "protected") {
      findings.flag("destructive", `${name} writes into system path ${target.text}`);
    }
  }
  if (
    name === "rsync" &&
    args.some((word) => word.text.startsWith("--delete") || word.text === "--remove-source-files")
  ) {
    findings.flag("destructive", "rsync --delete deletes files at the destination");
  }
  findings.flag("write", `${name} writes ${destinations.map((target) => target.text).join(" ") || "files"}`);
});

deny("chmod chown chgrp", (call) => {
  const { name, args, findings } = call;
  const what = name === "chmod" ? "permissions" : "ownership";
  const isOption = (text: string): boolean => /^-[cfvRHLPh]+$/.test(text) || text.startsWith("--");
  if (
    args.some((word) => word.text === "--recursive" || (/^-[cfvRHLPh]+$/.test(word.text) && word.text.includes("R")))
  ) {
    findings.flag("destructive", `${name} -R changes ${what} recursively`);
  }
  const positional = args.filter((word) => !isOption(word.text));
  const hasReference = args.some((word) => word.text.startsWith("--reference"));
  for (const target of hasReference ? positional : positional.slice(1)) {
    if (!target.dynamic && (classifyPath(target.text) === "protected" || target.text === "~")) {
      findings.flag("destructive", `${name} changes ${what} of system path ${target.text}`);
    }
  }
  findings.flag("write", `${name} changes file ${what}`);
});

deny("dd", (call) => {
  for (const word of call.args) {
    if (!word.text.startsWith("of=")) continue;
    const target = word.text.slice(3);
    if (!word.dynamic && classifyPath(target) === "discard") continue;
    call.findings.flag("destructive", `dd of=${target} overwrites it with raw data`);
  }
  call.findings.flag("write", "dd copies raw data");
});

// Commands that write a file named in their arguments: a system path there is destructive.
deny("tee", (call) => {
  for (const target of operands(call.args, "", [])) {
    classifyWriteTarget(call.findings, target.text, target.dynamic, "tee");
  }
});

deny("sort", (call) => {
  for (const target of optionValues(call.args, "kStToy", "o", ["--output"])) {
    classifyWriteTarget(call.findings, target.text, target.dynamic, "sort -o");
  }
});

deny("uniq", (call) => {
  const output = operands(call.args, "fsw")[1];
  if (output !== undefined) classifyWriteTarget(call.findings, output.text, output.dynamic, call.name);
});

deny("tree", (call) => {
  for (const target of optionValues(call.args, "oLPIH", "o", [])) {
    classifyWriteTarget(call.findings, target.text, target.dynamic, "tree -o");
  }
});

deny("sed gsed", (call) => {
  const { args, findings, name } = call;
  if (!args.some((word) => /^-[A-Za-z]*i/.test(word.text) || word.text.startsWith("--in-place"))) return;
  const files = operands(args, "efl", ["--expression", "--file", "--line-length"]);
  const hasScriptOption = optionValues(args, "efl", "ef", ["--expression", "--file"]).length > 0;
  for (const target of hasScriptOption ? files : files.slice(1)) {
    classifyWriteTarget(findings, target.text, target.dynamic, `${name} -i`);
  }
  findings.flag("write", `${name} -i edits files in place`);
});

deny("find", (call) => {
  const { args, findings } = call;
  for (let index = 0; index < args.length; index++) {
    const text = (args[index] as Word).text;
    if (text === "-delete") findings.flag("destructive", "find -delete deletes every matching file");
    else if (text === "-fprint" || text === "-fprint0" || text === "-fprintf" || text === "-fls") {
      const target = args[index + 1];
      if (target !== undefined) classifyWriteTarget(findings, target.text, target.dynamic, `find ${text}`);
    } else if (text === "-exec" || text === "-execdir" || text === "-ok" || text === "-okdir") {
      let end = index + 1;
      while (end < args.length && args[end]?.text !== ";" && args[end]?.text !== "+") end++;
      const inner = args.slice(index + 1, end);
      if (inner.length > 0) {
        checkDepth(call.environment.depth + 1);
        const result = classifySimpleCommand(inner, {
          ...call.environment,
          depth: call.environment.depth + 1,
          argumentsUnknown: true,
          stdinRedirect: undefined,
        });
        findings.merge(result.findings);
      }
      index = end;
    }
  }
});

// --- Version control -----------------------------------------------------------------------

deny("git", (call) => {
  const { args, findings } = call;
  let index = 0;
  while (index < args.length) {
    const text = (args[index] as Word).text;
    if (["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"].includes(text))
      index += 2;
    else if (text.startsWith("-")) index++;
    else break;
  }
  const subcommand = args[index]?.text;
  const rest = args.slice(index + 1);
  if (subcommand === undefined) return;
  const texts = rest.map((word) => word.text);
  const has = (...options: string[]): boolean => texts.some((text) => options.includes(text.split("=")[0] ?? ""));
  const positional = texts.filter((text) => !text.startsWith("-"));
  const destroy = (reason: string): void => findings.flag("destructive", `git ${reason}`);
  for (const target of optionValues(rest, "", "", ["--output"])) {
    classifyWriteTarget(findings, target.text, target.dynamic, `git ${subcommand} --output`);
  }
  switch (subcommand) {
    case "push":
      if (has("--force", "--force-with-lease", "--force-if-includes", "--mirror") || hasFlag(rest, "f")) {
        destroy("push --force rewrites remote history");
      }
      if (
        has("--delete", "--prune") ||
        hasFlag(rest, "d") ||
        positional.some((text) => text.startsWith("+") || text.startsWith(":"))
      ) {
        destroy("push with --delete, --prune, +refspec or :refspec deletes or rewrites remote refs");
      }
      return;
    case "reset":
      if (has("--hard")) destroy("reset --hard discards uncommitted changes");
      return;
    case "clean":
      if (has("--dry-run") || hasFlag(rest, "n")) return;
      if (has("--force") || hasFlag(rest, "f")) destroy("clean -f deletes untracked files");
      return;
    case "checkout":
      if (has("--force") || hasFlag(rest, "f")) destroy("checkout -f discards uncommitted changes");
      if (texts.includes("--") || texts.includes(".")) destroy("checkout -- <paths> discards uncommitted changes");
      return;
    case "switch":
      if (has("--discard-changes", "--force") || hasFlag(rest, "f"))
        destroy("switch --discard-changes discards uncommitted changes");
      return;
    case "restore": {
      // Only `--staged` alone leaves the working tree alone; anything else overwrites edits.
      const stagedOnly = (has("--staged") || hasFlag(rest, "S")) && !has("--worktree") && !hasFlag(rest, "W");
      if (!stagedOnly) destroy("restore discards uncommitted changes in the working tree");
      return;
    }
    case "rm":
      if (has("--force") || hasFlag(rest, "f")) destroy("rm -f deletes files with uncommitted changes");
      return;
    case "branch":
      if (hasFlag(rest, "D") || ((has("--delete") || hasFlag(rest, "d")) && (has("--force") || hasFlag(rest, "f")))) {
        destroy("branch -D deletes a branch even if it is not merged");
      }
      return;
    case "stash":
      if (positional[0] === "drop" || positional[0] === "clear") {
        destroy(`stash ${positional[0]} discards stashed changes`);
      }
      return;
    case "reflog":
      if (positional[0] === "expire" || positional[0] === "delete") {
        destroy(`reflog ${positional[0]} deletes history needed for recovery`);
      }
      return;
    case "filter-branch":
    case "filter-repo":
      destroy(`${subcommand} rewrites the whole history`);
      return;
    case "update-ref":
      if (hasFlag(rest, "d")) destroy("update-ref -d deletes a ref");
      return;
    case "prune":
      destroy("prune deletes unreachable objects");
      return;
    case "gc":
      if (texts.some((text) => text.startsWith("--prune"))) destroy("gc --prune deletes unreachable objects");
      return;
    default:
      return;
  }
});

// --- Network ------------------------------------------------------------------------------

deny("curl", (call) => {
  call.network = true;
  call.findings.flag("write", "curl accesses the network (it may upload or download data)");
  const values = optionValues(call.args, "AbcCdDeEFHKmoPQrtTuUwxXyYz", "oDc", [
    "--output",
    "--dump-header",
    "--cookie-jar",
  ]);
  for (const target of values) {
    if (target.text !== "-") classifyWriteTarget(call.findings, target.text, target.dynamic, "curl -o");
  }
});

deny("wget", (call) => {
  call.network = true;
  call.findings.flag("write", "wget accesses the network (it may upload or download data)");
  const values = optionValues(call.args, "aABDeiIlOoPQRtTUwX", "OoaP", [
    "--output-document",
    "--output-file",
    "--append-output",
    "--directory-prefix",
  ]);
  for (const target of values) {
    if (target.text !== "-") classifyWriteTarget(call.findings, target.text, target.dynamic, "wget -O");
  }
});

deny("ssh", (call) => {
  call.network = true;
  const operand = skipOptions(call.args, 0, "BbcDEeFIiJLlmOoPpQRSWw");
  const host = call.args[operand];
  const remote = call.args.slice(operand + 1);
  if (host === undefined || remote.length === 0) {
    call.findings.flag("write", "ssh opens a remote shell");
    return;
  }
  call.findings.flag("write", `ssh runs a command on ${host.text}`);
  nested(call, remote.map((word) => word.text).join(" "));
});

// --- Interpreters and code from strings ----------------------------------------------------

deny(`${[...SHELLS].join(" ")} source .`, (call) => {
  const { args, findings, name } = call;
  if (flagNetworkCode(call, "shell code")) return;
  if (name === "source" || name === ".") {
    findings.flag("write", `${name} runs ${args[0]?.text ?? "a script"} in the current shell, which is not analyzed`);
    return;
  }
  if (!ANALYZED_SHELLS.has(name))
    findings.flag("write", `${name} is not analyzed in its own dialect (only sh and dash are)`);
  let commandMode = false;
  let stdinMode = false;
  let index = 0;
  while (index < args.length) {
    const word = args[index] as Word;
    const text = word.text;
    if (word.dynamic) break;
    if (text === "--" || text === "-") {
      index++;
      break;
    }
    if (text === "--rcfile" || text === "--init-file") index += 2;
    else if (text.startsWith("--")) index++;
    else if (/^[-+][A-Za-z]+$/.test(text)) {
      if (text.startsWith("-") && text.includes("c")) commandMode = true;
      if (text.includes("s")) stdinMode = true;
      index += /[oO]$/.test(text) ? 2 : 1;
    } else break;
  }
  const operand = args[index];
  if (commandMode) {
    if (operand === undefined) findings.flag("write", `${name} -c without a command: cannot be parsed reliably`);
    else if (operand.dynamic)
      findings.flag("destructive", `${name} -c runs a command computed at run time, which cannot be analyzed`);
    else nested(call, operand.text);
    return;
  }
  if (operand !== undefined && !stdinMode) {
    findings.flag("write", `${name} runs script ${operand.text}, which is not analyzed`);
    return;
  }
  const source = call.environment.stdinRedirect;
  if (source?.heredoc !== undefined) {
    findings.flag("write", `${name} runs commands from a heredoc`);
    nested(call, source.heredoc.text);
  } else if (source?.operator === "<<<" && source.target !== undefined) {
    findings.flag("write", `${name} runs commands from a here-string`);
    if (source.target.dynamic) findings.flag("destructive", `${name} runs a here-string computed at run time`);
    else nested(call, source.target.text);
  } else if (source !== undefined) {
    findings.flag(
      "write",
      `${name} runs commands read from ${source.target?.text ?? "a file"}, which are not analyzed`,
    );
  } else {
    call.readsStdinAsCode = name;
    findings.flag("write", `${name} runs commands read from standard input, which are not analyzed`);
  }
});

deny([...INTERPRETERS.keys()].join(" "), (call) => {
  const language = INTERPRETERS.get(call.name) ?? "interpreted";
  if (flagNetworkCode(call, `${language} code`)) return;
  call.findings.flag("write", `${call.name} runs ${language} code that is not analyzed`);
  const inlineCode = call.args.some(
    (word) => /^-[A-Za-z]*[cemErp]$/.test(word.text) || /^--(?:eval|print|command)(?:=|$)/.test(word.text),
  );
  const script = call.args.find((word) => !word.text.startsWith("-"));
  if (!inlineCode && script === undefined && call.environment.stdinRedirect === undefined) {
    call.readsStdinAsCode = call.name;
  }
});

deny("eval", (call) => {
  if (flagNetworkCode(call, "code")) return;
  if (call.args.some((word) => word.dynamic)) {
    call.findings.flag("destructive", "eval runs text computed at run time, which cannot be analyzed");
    return;
  }
  call.findings.flag("write", "eval runs its arguments as shell code");
  nested(call, call.args.map((word) => word.text).join(" "));
});

deny("su", (call) => {
  const commands = optionValues(call.args, "cgGsw", "c", ["--command"]);
  const command = commands[0];
  if (command === undefined) {
    call.findings.flag("destructive", "su opens a shell as another user");
    return;
  }
  if (command.dynamic) {
    call.findings.flag("destructive", "su -c runs a command computed at run time, which cannot be analyzed");
    return;
  }
  const inner = analyzeText(command.text, call.environment.depth + 1, false, call.environment.context);
  if (inner.risk === "write")
    inner.flag("destructive", "su runs the command as another user: write escalated to destructive");
  call.findings.merge(inner);
  call.findings.flag("write", "su runs a command as another user");
});

deny("trap", (call) => {
  const action = call.args[0];
  call.findings.flag("write", "trap installs a handler that runs later");
  if (action === undefined || call.args.length < 2 || action.text.startsWith("-")) return;
  if (!action.dynamic) nested(call, action.text);
});

deny("watch", (call) => {
  const operand = skipOptions(call.args, 0, "nq", ["--interval"]);
  const command = call.args.slice(operand);
  call.findings.flag("write", "watch runs a command repeatedly");
  if (command.length > 0) nested(call, command.map((word) => word.text).join(" "));
});

// --- Processes and the system ------------------------------------------------------------

deny("kill", (call) => {
  const { args, findings } = call;
  let signal: string | undefined;
  let index = 0;
  for (; index < args.length; index++) {
    const text = (args[index] as Word).text;
    if (text === "--") {
      index++;
      break;
    }
    if (text === "-s" || text === "-n" || text === "--signal") signal = args[++index]?.text;
    else if (signal === undefined && /^-[A-Za-z0-9+]+$/.test(text)) signal = text.slice(1);
    else break;
  }
  const normalized = (signal ?? "TERM").toUpperCase().replace(/^SIG/, "");
  if (normalized === "9" || normalized === "KILL") findings.flag("destructive", "kill -9 force-kills processes");
  if (args.slice(index).some((word) => word.text === "-1")) {
    findings.flag("destructive", "kill -1 signals every process");
  }
});

deny("systemctl", (call) => {
  const subcommand = operands(call.args, "HMnopst", [
    "--host",
    "--machine",
    "--lines",
    "--output",
    "--property",
    "--signal",
    "--type",
    "--state",
  ])[0]?.text;
  const destroys = "poweroff reboot halt kexec suspend hibernate hybrid-sleep emergency rescue isolate";
  if (subcommand !== undefined && destroys.split(" ").includes(subcommand))
    call.findings.flag("destructive", `systemctl ${subcommand} stops or restarts the machine`);
});

deny("init telinit", (call) => {
  const level = call.args[0]?.text;
  if (level === "0" || level === "6")
    call.findings.flag("destructive", `${call.name} ${level} stops or restarts the machine`);
  else call.findings.flag("write", `${call.name} changes the run level`);
});

deny("crontab", (call) => {
  if (hasFlag(call.args, "r")) call.findings.flag("destructive", "crontab -r removes every cron job");
});
