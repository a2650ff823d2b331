// The allow-list of command shapes proven read-only: a program, the options it may take and
// checks of its operands. The classifier rates a command `read` only when it matches a shape
// here; an unknown program, an unlisted option (abbreviations included), or an argument that
// may turn into an option at run time makes it `write`. Adding a program means reviewing every
// option it has (GNU, BSD, busybox) for ones that write files, run programs or reach the network.

import { posix } from "node:path";
import type { Word } from "./shell-syntax.js";

/** One command as the shapes see it: program name (wrappers stripped) and its argument words. */
export interface CommandWords {
  readonly name: string;
  readonly args: readonly Word[];
  /** Arguments are appended at run time (xargs): only programs with no dangerous option can take them. */
  readonly argumentsUnknown: boolean;
}

/** Whether `name` has a read-only shape at all; without one a command is never read. */
export function hasReadOnlyShape(name: string): boolean {
  return SHAPES.has(name);
}

/**
 * Why `command` does not match its program's read-only shape, or undefined when it does (the
 * command only reads and prints). Callers check `hasReadOnlyShape` first; a program without a
 * shape gets a generic reason.
 */
export function readOnlyProblem(command: CommandWords): string | undefined {
  const shape = SHAPES.get(command.name);
  if (shape === undefined) return `${command.name} is not a known read-only command`;
  const inert = shape.options === "any" && shape.check === undefined && shape.whole === undefined;
  if (command.argumentsUnknown && !inert) {
    return `${command.name} gets arguments at run time (xargs), which may be options that write or run programs`;
  }
  for (const word of command.args) {
    const problem = sensitivePathProblem(command.name, word);
    if (problem !== undefined) return problem;
  }
  // A word the shell splits at run time may be several arguments, options among them, wherever it
  // stands: an option's value (`git log -n $x`: `1 --output=f`), a find test's operand, an operand
  // that starts with a literal. Only a program with no dangerous option at all can take one.
  if (!inert && shape.splitSafe !== true) {
    const split = command.args.find((word) => word.splits);
    if (split !== undefined) {
      return `${command.name} gets ${clip(split.text)}, which the shell splits into several words at run time, options among them (quote a variable; name files)`;
    }
    // A pattern is as many words as files match it, and a file may be named `--output=f`, or
    // `BEGIN{system("sh")}` for awk's program: the shell sorts `+` and `-` before letters.
    const glob = command.args.find((word) => word.glob);
    if (glob !== undefined) {
      return `${command.name} gets ${clip(glob.text)}, a pattern the shell expands to file names at run time, options among them (name the files)`;
    }
  }
  if (shape.whole !== undefined) return shape.whole(command.args, command.name);
  const parsed = parseArguments(command.name, command.args, shape);
  if (typeof parsed === "string") return parsed;
  return shape.check?.(parsed);
}

// ---------------------------------------------------------------------------------------
// Options

type Arity = "none" | "value" | "optional";

interface OptionSpec {
  readonly short: ReadonlyMap<string, Arity>;
  readonly long: ReadonlyMap<string, Arity>;
}

/** An option by name (`-n`, `--lines`), its value's text, and whether that value is computed at run time. */
export interface ParsedOption {
  readonly name: string;
  readonly value: string | undefined;
  readonly dynamic?: boolean | undefined;
}

/** A parsed command: options by name (`-n`, `--lines`) with their values, and the operands. */
export interface ParsedCall {
  readonly name: string;
  readonly options: readonly ParsedOption[];
  readonly operands: readonly Word[];
}

interface Shape {
  /** The options it may take, or "any" for a program none of whose options writes, runs or connects. */
  readonly options: OptionSpec | "any";
  /** Accepts `-NUM` (head -20, git log -5). */
  readonly numeric?: boolean;
  /** Options end at the first operand (shell builtins, POSIX utilities); else GNU order. */
  readonly optionsFirst?: boolean;
  /** Checks the parsed call; returns why it is not read-only. */
  readonly check?: (call: ParsedCall) => string | undefined;
  /** For arguments that are not getopt-style (find, tar, git, test): checks the words themselves instead. */
  readonly whole?: (args: readonly Word[], name: string) => string | undefined;
  /** No split of an unquoted expansion can make it write or run anything (test: it only compares). */
  readonly splitSafe?: boolean;
}

/**
 * An option spec in getopt style. `short`: letters, `x:` takes a value (attached or next
 * word), `x::` an optional attached one. `long`: space-separated names, `name=` takes a value
 * (`--name=v` or the next word), `name?` an optional attached one (`--name` or `--name=v`).
 */
function spec(short: string, long = ""): OptionSpec {
  const shortMap = new Map<string, Arity>();
  for (let index = 0; index < short.length; index++) {
    const letter = short.charAt(index);
    if (short.startsWith("::", index + 1)) {
      shortMap.set(letter, "optional");
      index += 2;
    } else if (short.charAt(index + 1) === ":") {
      shortMap.set(letter, "value");
      index++;
    } else shortMap.set(letter, "none");
  }
  const longMap = new Map<string, Arity>();
  for (const entry of long.split(/\s+/)) {
    if (entry === "") continue;
    if (entry.endsWith("=")) longMap.set(entry.slice(0, -1), "value");
    else if (entry.endsWith("?")) longMap.set(entry.slice(0, -1), "optional");
    else longMap.set(entry, "none");
  }
  return { short: shortMap, long: longMap };
}

function join(...specs: readonly OptionSpec[]): OptionSpec {
  return {
    short: new Map(specs.flatMap((one) => [...one.short])),
    long: new Map(specs.flatMap((one) => [...one.long])),
  };
}

/**
 * Whether a word may be an option once the shell has expanded it: a literal `-x`, or a word
 * whose value is known only at run time and does not start with a literal character that
 * cannot become `-` (`"$x"`, `*`, `{-O,x}`, `$'\x2d…'`: a file named `--pre=sh` matches `*`).
 * `$!`, `$$`, `$?` and `$#` are numbers.
 */
function optionKind(word: Word): "operand" | "option" | "unknown" {
  const text = word.text;
  if (text.startsWith("-") && text !== "-") return word.dynamic || word.glob ? "unknown" : "option";
  if (/^\$[!$?#]$/.test(text)) return "operand";
  if ((word.dynamic || word.glob) && !/^[A-Za-z0-9_./~+:,@%=]/.test(text)) return "unknown";
  return "operand";
}

function parseArguments(name: string, args: readonly Word[], shape: Shape): ParsedCall | string {
  const options: ParsedOption[] = [];
  const operands: Word[] = [];
  let endOfOptions = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as Word;
    if (endOfOptions) {
      operands.push(word);
      continue;
    }
    if (word.text === "--" && !word.dynamic) {
      endOfOptions = true;
      continue;
    }
    const kind = optionKind(word);
    if (kind === "operand" || (shape.numeric === true && /^-[0-9]+$/.test(word.text) && !word.dynamic)) {
      if (kind === "operand") {
        operands.push(word);
        if (shape.optionsFirst === true) endOfOptions = true;
      } else options.push({ name: word.text, value: undefined });
      continue;
    }
    if (shape.options === "any") {
      options.push({ name: word.text, value: undefined });
      continue;
    }
    if (kind === "unknown") {
      return `${name} gets an argument computed at run time (${clip(word.text)}) that may expand to an option`;
    }
    const text = word.text;
    if (text.startsWith("--")) {
      const equals = text.indexOf("=");
      const optionName = equals === -1 ? text.slice(2) : text.slice(2, equals);
      const arity = shape.options.long.get(optionName);
      if (arity === undefined) return `${name} option --${clip(optionName)} is not known to be read-only`;
      if (equals !== -1) {
        if (arity === "none") return `${name} option --${clip(optionName)} takes no value`;
        options.push({ name: `--${optionName}`, value: text.slice(equals + 1), dynamic: word.dynamic });
      } else if (arity === "value") {
        options.push({ name: `--${optionName}`, value: args[index + 1]?.text, dynamic: args[index + 1]?.dynamic });
        index++;
      } else options.push({ name: `--${optionName}`, value: undefined });
      continue;
    }
    for (let position = 1; position < text.length; position++) {
      const letter = text.charAt(position);
      const arity = shape.options.short.get(letter);
      if (arity === undefined) return `${name} option -${clip(letter)} is not known to be read-only`;
      if (arity === "none") {
        options.push({ name: `-${letter}`, value: undefined });
        continue;
      }
      const attached = text.slice(position + 1);
      if (attached !== "" || arity === "optional") {
        options.push({ name: `-${letter}`, value: attached === "" ? undefined : attached, dynamic: word.dynamic });
      } else {
        options.push({ name: `-${letter}`, value: args[index + 1]?.text, dynamic: args[index + 1]?.dynamic });
        index++;
      }
      break;
    }
  }
  return { name, options, operands };
}

function has(call: ParsedCall, ...names: readonly string[]): boolean {
  return call.options.some((option) => names.includes(option.name));
}

function clip(text: string): string {
  return text.length <= 40 ? text : `${text.slice(0, 37)}...`;
}

// ---------------------------------------------------------------------------------------
// Paths

/**
 * Reads of other processes' information (/proc/<pid>/environ holds a parent's secrets) are
 * never rated read, whatever the program; nor patterns over the top-level folders, which can
 * reach /proc, nor recursive text searches from `/`. The sandbox is what really hides the host's
 * /proc; this catches the plain spellings.
 */
function sensitivePathProblem(name: string, word: Word): string | undefined {
  const text = word.text;
  if (!text.includes("/")) return undefined;
  const components = text.split("/");
  if (components.some((component) => component === "proc" || component === "environ")) {
    return `${name} reads process information under /proc (${clip(text)}), where other processes' environments hold secrets`;
  }
  if (word.glob && /^\/[^/]*[*?[{]/.test(text)) {
    return `${name} reads a pattern over the top-level folders (${clip(text)}), which can reach /proc`;
  }
  if (RECURSIVE_READERS.has(name) && !word.dynamic && posix.normalize(text) === "/") {
    return `${name} searches the whole file system, /proc included`;
  }
  return undefined;
}

const RECURSIVE_READERS = new Set(["grep", "egrep", "fgrep", "rg", "diff"]);

// ---------------------------------------------------------------------------------------
// Programs with embedded languages: sed, awk, find, tar

/**
 * Why a sed script may write files or run commands, or undefined when it is made only of
 * commands that edit the stream. The script is parsed command by command as GNU sed does; `e`,
 * `w`, `W`, `r`, `R`, the `s` flags `e` and `w`, and anything not understood are refused.
 */
export function sedScriptProblem(script: string): string | undefined {
  const length = script.length;
  let index = 0;
  const skipBlanks = (): void => {
    while (index < length && (script.charAt(index) === " " || script.charAt(index) === "\t")) index++;
  };
  const readDelimited = (delimiter: string): boolean => {
    while (index < length) {
      const char = script.charAt(index);
      if (char === "\\") {
        index += 2;
        continue;
      }
      index++;
      if (char === delimiter) return true;
      if (char === "\n") return false;
    }
    return false;
  };
  const readNumber = (): boolean => {
    const start = index;
    while (/[0-9]/.test(script.charAt(index))) index++;
    return index > start;
  };
  const readRegexAddress = (): boolean => {
    let delimiter = script.charAt(index);
    if (delimiter === "\\") delimiter = script.charAt(++index);
    if (delimiter === "" || delimiter === "\n" || delimiter === "\\") return false;
    index++;
    if (!readDelimited(delimiter)) return false;
    while (script.charAt(index) === "I" || script.charAt(index) === "M") index++;
    return true;
  };
  const readAddress = (second: boolean): boolean => {
    const char = script.charAt(index);
    if (char === "$") {
      index++;
      return true;
    }
    if (/[0-9]/.test(char)) {
      readNumber();
      if (script.charAt(index) === "~") {
        index++;
        return readNumber();
      }
      return true;
    }
    if (char === "/" || char === "\\") return readRegexAddress();
    if (second && (char === "+" || char === "~")) {
      index++;
      return readNumber();
    }
    return !second;
  };
  const endOfCommand = (): boolean => {
    skipBlanks();
    const char = script.charAt(index);
    if (char === ";" || char === "\n") index++;
    return char === "" || char === ";" || char === "\n" || char === "}" || char === "#";
  };
  const skipLine = (): void => {
    while (index < length && script.charAt(index) !== "\n") index++;
  };

  while (index < length) {
    const char = script.charAt(index);
    if (char === " " || char === "\t" || char === "\n" || char === ";" || char === "}") {
      index++;
      continue;
    }
    if (char === "#") {
      skipLine();
      continue;
    }
    const start = index;
    if (!readAddress(false)) return "sed script has an address that cannot be read";
    if (index > start && script.charAt(index) === ",") {
      index++;
      if (!readAddress(true)) return "sed script has an address that cannot be read";
    }
    skipBlanks();
    while (script.charAt(index) === "!") {
      index++;
      skipBlanks();
    }
    const command = script.charAt(index++);
    if ("=dDgGhHnNpPxzF".includes(command) && command !== "") {
      if (!endOfCommand()) return `sed command ${command} is followed by something unexpected`;
    } else if ("lLqQ".includes(command) && command !== "") {
      skipBlanks();
      readNumber();
      if (!endOfCommand()) return `sed command ${command} is followed by something unexpected`;
    } else if (command === "{") {
      // A block: its commands follow.
    } else if (command === ":" || command === "b" || command === "t" || command === "T") {
      // GNU sed ends a label at a blank as well as at `;` or a newline (`:x e cmd` runs cmd):
      // whatever follows the label is read as the next command, so nothing hides behind one.
      skipBlanks();
      while (index < length && !"; \t\n".includes(script.charAt(index))) index++;
    } else if (command === "a" || command === "i" || command === "c") {
      // Text to the end of the line; a trailing backslash continues it on the next line.
      while (index < length && script.charAt(index) !== "\n") index += script.charAt(index) === "\\" ? 2 : 1;
    } else if (command === "s" || command === "y") {
      const delimiter = script.charAt(index++);
      if (delimiter === "" || delimiter === "\n" || delimiter === "\\") return `sed ${command} has no delimiter`;
      if (!readDelimited(delimiter) || !readDelimited(delimiter)) return `sed ${command} command is not terminated`;
      if (command === "s") {
        for (;;) {
          const flag = script.charAt(index);
          if (flag === "e") return "sed s///e runs the pattern space as a shell command";
          if (flag === "w") return "sed s///w writes a file";
          if (flag === "" || !/[gpiImM0-9]/.test(flag)) break;
          index++;
        }
      }
      if (!endOfCommand()) return `sed ${command} command has flags that are not known to be read-only`;
    } else if (command === "e") {
      return "sed e runs a shell command";
    } else if (command === "w" || command === "W") {
      return `sed ${command} writes a file`;
    } else if (command === "r" || command === "R") {
      return `sed ${command} reads a file named inside the script`;
    } else {
      return `sed command ${JSON.stringify(command)} is not known to be read-only`;
    }
  }
  return undefined;
}

const SED = spec(
  "nErsuzl:e:",
  "quiet silent regexp-extended separate unbuffered null-data line-length= expression= posix debug sandbox",
);

function checkSed(call: ParsedCall): string | undefined {
  const expressions = call.options.filter((option) => option.name === "-e" || option.name === "--expression");
  // `-e "$x"`: the text here is `$x`, which reads as an address and a harmless command.
  if (expressions.some((option) => option.dynamic === true)) return "sed script is computed at run time";
  const scripts: (string | undefined)[] = expressions.map((option) => option.value);
  if (scripts.length === 0) {
    const script = call.operands[0];
    if (script === undefined) return "sed without a script";
    if (script.dynamic) return "sed script is computed at run time";
    scripts.push(script.text);
  }
  for (const script of scripts) {
    if (script === undefined) return "sed -e without a script";
    const problem = sedScriptProblem(script);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

const AWK = spec("F:v:", "field-separator= assign=");
// system(), pipes to and from commands, output redirection, getline and gawk's @load/@include.
const AWK_EFFECTS = /system|getline|[|>@]/;

function checkAwk(call: ParsedCall): string | undefined {
  const program = call.operands[0];
  if (program === undefined) return `${call.name} without a program`;
  if (program.dynamic) return `${call.name} program is computed at run time`;
  if (AWK_EFFECTS.test(program.text)) {
    return `${call.name} program may run commands or write files (system(), getline, | or >)`;
  }
  return undefined;
}

const FIND_FLAGS = new Set(
  (
    "-print -print0 -ls -prune -quit -true -false -empty -readable -writable -executable -nouser -nogroup " +
    "-depth -d -follow -xdev -mount -daystart -noleaf -ignore_readdir_race -noignore_readdir_race -not -a " +
    "-and -o -or -nowarn -warn ( ) ! ,"
  ).split(" "),
);
const FIND_TESTS = new Set(
  (
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -size " +
    "-mtime -mmin -atime -amin -ctime -cmin -used -newer -anewer -cnewer -perm -user -group -uid -gid " +
    "-links -inum -samefile -maxdepth -mindepth -regextype -printf -fstype -context -files0-from"
  ).split(" "),
);

/** find is read-only when every primary in its expression only tests or prints (no -exec, -delete, -fprint). */
function checkFind(args: readonly Word[]): string | undefined {
  let index = 0;
  while (index < args.length) {
    const text = (args[index] as Word).text;
    if (text === "-D") index += 2;
    else if (/^-[HLP]$/.test(text) || /^-O[0-9]$/.test(text)) index++;
    else break;
  }
  for (; index < args.length; index++) {
    const word = args[index] as Word;
    const text = word.text;
    const primary = text.startsWith("-") || FIND_FLAGS.has(text);
    if (!primary) {
      if (optionKind(word) === "unknown") return "find gets an argument computed at run time that may be an action";
      continue;
    }
    if (word.dynamic || word.glob) return "find gets an argument computed at run time that may be an action";
    if (FIND_FLAGS.has(text)) continue;
    if (FIND_TESTS.has(text) || /^-newer[aBcmt][aBcmt]$/.test(text)) index++;
    else return `find ${clip(text)} is not known to be read-only`;
  }
  return undefined;
}

const TAR = spec(
  "tvzjJaf:C:",
  "list verbose file= gzip gunzip bzip2 xz lzma lzip lzop zstd auto-compress wildcards no-wildcards anchored " +
    "no-anchored wildcards-match-slash ignore-case numeric-owner utc full-time force-local exclude= directory= " +
    "show-transformed-names quoting-style= null files-from= label= ignore-zeros blocking-factor= record-size= " +
    "warning= no-recursion recursion",
);

/** tar is read-only when it lists (t), with no program-running option (-I, --to-command, remote archives). */
function checkTar(args: readonly Word[]): string | undefined {
  let words = args;
  const first = args[0];
  // Old style: `tar tzf archive` bundles letters without a dash; f takes the next word.
  if (first !== undefined && !first.text.startsWith("-") && !first.dynamic) {
    const bundled: Word[] = [];
    let values = args.slice(1);
    for (const letter of first.text) {
      if (!"tvzjJaf".includes(letter)) return `tar ${letter} is not known to be read-only`;
      bundled.push({ ...first, text: `-${letter}` });
      if (letter === "f" && values[0] !== undefined) {
        bundled.push(values[0]);
        values = values.slice(1);
      }
    }
    words = [...bundled, ...values];
  }
  const call = parseArguments("tar", words, { options: TAR });
  if (typeof call === "string") return call;
  if (!has(call, "-t", "--list")) return "tar without -t creates or extracts files";
  const archives = call.options.filter((option) => option.name === "-f" || option.name === "--file");
  if (!has(call, "--force-local") && archives.some((option) => option.value?.includes(":") === true)) {
    return "tar -f host:file reaches a remote archive through a remote shell";
  }
  if (!has(call, "--force-local") && archives.some((option) => option.dynamic === true)) {
    return "tar -f gets an archive computed at run time, which may be host:file (a remote shell); add --force-local";
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// git

const DIFF = spec(
  "puszwbWRaDU:l:M::C::B::S:G:O:X::",
  "patch no-patch unified= raw patch-with-raw patch-with-stat stat? numstat shortstat dirstat? summary name-only " +
    "name-status compact-summary full-index binary abbrev? no-abbrev text ignore-all-space ignore-space-change " +
    "ignore-space-at-eol ignore-cr-at-eol ignore-blank-lines ignore-matching-lines= word-diff? word-diff-regex= " +
    "color? no-color color-moved? no-color-moved color-words? minimal patience histogram diff-algorithm= anchored= " +
    "find-renames? find-copies? find-copies-harder no-renames rename-empty no-rename-empty diff-filter= " +
    "pickaxe-all pickaxe-regex relative? no-relative src-prefix= dst-prefix= no-prefix default-prefix " +
    "line-prefix= function-context exit-code quiet no-ext-diff no-textconv ignore-submodules? submodule? " +
    "cached staged merge-base no-index check ws-error-highlight= indent-heuristic no-indent-heuristic " +
    "inter-hunk-context= irreversible-delete break-rewrites? follow cc combined-all-paths",
);
const LOG = join(
  DIFF,
  spec(
    "n:iEFPgcmtL:",
    "oneline format= pretty? graph no-graph decorate? no-decorate decorate-refs= decorate-refs-exclude= all " +
      "branches? tags? remotes? glob= exclude= since= until= after= before= author= committer= grep= all-match " +
      "invert-grep regexp-ignore-case basic-regexp extended-regexp fixed-strings perl-regexp max-count= skip= " +
      "reverse first-parent merges no-merges min-parents= max-parents= no-min-parents no-max-parents date= " +
      "abbrev-commit no-abbrev-commit relative-date left-right cherry-pick cherry-mark cherry boundary " +
      "topo-order date-order author-date-order full-history simplify-by-decoration simplify-merges ancestry-path? " +
      "dense sparse show-pulls mailmap use-mailmap no-mailmap encoding= notes? no-notes expand-tabs? " +
      "no-expand-tabs log-size walk-reflogs children parents source full-diff no-walk? do-walk count not " +
      "left-only right-only merge reflog single-worktree in-commit-order show-linear-break? root no-commit-id " +
      "always stdin",
  ),
);
const ANY: Shape = { options: "any" };

function listing(options: OptionSpec, ...listFlags: readonly string[]): Shape {
  return {
    options,
    check: (call) =>
      call.operands.length === 0 || has(call, ...listFlags)
        ? undefined
        : `git ${call.name} with a name creates or changes it`,
  };
}

function subcommands(options: OptionSpec, reads: readonly string[], otherwise: string): Shape {
  return {
    options,
    check: (call) => {
      const subcommand = call.operands[0];
      if (subcommand?.dynamic) return `git ${call.name} subcommand is computed at run time`;
      return subcommand !== undefined && reads.includes(subcommand.text) ? undefined : otherwise;
    },
  };
}

const GIT_CONFIG_READS = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"];
const GIT_SUBCOMMANDS = new Map<string, Shape>([
  [
    "status",
    {
      options: spec(
        "sbvzu::",
        "short branch porcelain? long verbose untracked-files? ignored? ignore-submodules? column? no-column ahead-behind no-ahead-behind renames no-renames find-renames? show-stash null",
      ),
    },
  ],
  ["log", { options: LOG, numeric: true }],
  ["whatchanged", { options: LOG, numeric: true }],
  ["show", { options: LOG, numeric: true }],
  ["shortlog", { options: join(LOG, spec("nsew::", "numbered summary email group=")), numeric: true }],
  ["diff", { options: DIFF, numeric: true }],
  ["diff-tree", { options: LOG, numeric: true }],
  ["diff-files", { options: DIFF, numeric: true }],
  ["diff-index", { options: DIFF, numeric: true }],
  ["range-diff", { options: join(DIFF, spec("", "creation-factor= no-dual-color left-only right-only")) }],
  [
    "grep",
    {
      options: spec(
        "invwaclLhHoqzEGFPIrWe:f:A:B:C:m:",
        "cached untracked no-index no-exclude-standard exclude-standard recurse-submodules text no-textconv " +
          "ignore-case word-regexp invert-match full-name extended-regexp basic-regexp perl-regexp fixed-strings " +
          "line-number column files-with-matches name-only files-without-match null count color? no-color break " +
          "heading show-function context= after-context= before-context= function-context threads= max-depth= " +
          "max-count= and or not all-match quiet only-matching",
      ),
      numeric: true,
    },
  ],
  [
    "cat-file",
    {
      options: spec(
        "tpse",
        "batch? batch-check? batch-all-objects buffer unordered follow-symlinks allow-unknown-type use-mailmap",
      ),
    },
  ],
  [
    "blame",
    {
      options: spec(
        "lstfnepwcL:M::C::S:",
        "root show-stats show-name show-number show-email porcelain line-porcelain incremental date= reverse= first-parent minimal ignore-rev= ignore-revs-file= color-lines color-by-age no-textconv contents= abbrev= progress no-progress",
      ),
    },
  ],
  [
    "clean",
    {
      options: spec("ndxXqfe:", "dry-run quiet exclude= force"),
      check: (call) => (has(call, "-n", "--dry-run") ? undefined : "git clean without -n deletes untracked files"),
    },
  ],
  ["rev-parse", ANY],
  ["rev-list", ANY],
  ["ls-files", ANY],
  ["ls-tree", ANY],
  ["describe", ANY],
  ["name-rev", ANY],
  ["merge-base", ANY],
  ["show-ref", ANY],
  ["for-each-ref", ANY],
  ["count-objects", ANY],
  ["check-ignore", ANY],
  ["check-attr", ANY],
  ["check-ref-format", ANY],
  ["var", ANY],
  ["cherry", ANY],
  ["version", ANY],
  [
    "branch",
    listing(
      spec(
        "avrl",
        "list all remotes verbose contains= no-contains= merged= no-merged= points-at= show-current sort= format= color? no-color column? no-column abbrev= no-abbrev omit-empty ignore-case",
      ),
      "-l",
      "--list",
    ),
  ],
  [
    "tag",
    listing(
      spec(
        "ln::",
        "list contains= no-contains= merged= no-merged= points-at= sort= format= column? no-column ignore-case color?",
      ),
      "-l",
      "--list",
      "-n",
    ),
  ],
  ["stash", subcommands(LOG, ["list", "show"], "git stash without list or show changes the stash")],
  [
    "reflog",
    {
      options: LOG,
      check: (call) =>
        call.operands.length === 0 || ["show", "exists"].includes(call.operands[0]?.text ?? "")
          ? undefined
          : "git reflog changes the reflog",
    },
  ],
  [
    "remote",
    {
      options: spec("v", "verbose all push"),
      check: (call) =>
        call.operands.length === 0 || call.operands[0]?.text === "get-url"
          ? undefined
          : "git remote changes remotes or contacts them",
    },
  ],
  [
    "worktree",
    subcommands(spec("vz", "porcelain verbose expire="), ["list"], "git worktree without list changes worktrees"),
  ],
  ["notes", subcommands(spec("", "ref="), ["list", "show"], "git notes without list or show changes notes")],
  [
    "submodule",
    subcommands(spec("q", "quiet cached recursive"), ["status"], "git submodule without status changes submodules"),
  ],
  [
    "config",
    {
      options: spec(
        "lz",
        "get get-all get-regexp get-urlmatch list show-origin show-scope name-only local global system worktree " +
          "file= blob= type= bool int bool-or-int path expiry-date null includes no-includes default= fixed-value",
      ),
      check: (call) => {
        const first = call.operands[0]?.text;
        if (has(call, ...GIT_CONFIG_READS) || first === "get" || first === "list") return undefined;
        return call.operands.length === 1 ? undefined : "git config with a value changes the configuration";
      },
    },
  ],
]);

const GIT_GLOBAL = spec(
  "C:P",
  "no-pager no-optional-locks literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs no-replace-objects git-dir= work-tree= bare",
);

/** git is read-only for the subcommands above with their listed options; `-c`, `--config-env`, `--exec-path` and pagers are never. */
function checkGit(args: readonly Word[]): string | undefined {
  const global = parseArguments("git", args, { options: GIT_GLOBAL, optionsFirst: true });
  if (typeof global === "string") return global;
  const subcommand = global.operands[0];
  if (subcommand === undefined) return undefined;
  if (subcommand.dynamic) return "git subcommand is computed at run time";
  const shape = GIT_SUBCOMMANDS.get(subcommand.text);
  if (shape === undefined) return `git ${clip(subcommand.text)} is not known to be read-only`;
  const call = parseArguments(subcommand.text, global.operands.slice(1), shape);
  if (typeof call === "string") return `git ${call}`;
  return shape.check?.(call);
}

// ---------------------------------------------------------------------------------------
// The shell's own builtins

const LOWERCASE_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Names a read-only line may assign: lower case, no array subscript. Variables that make
 * programs load code (PATH, LD_PRELOAD, BASH_ENV, ENV, PAGER, GIT_*) are upper case by
 * convention, and a subscript is evaluated as arithmetic, which can run commands.
 */
export function isPlainVariableName(name: string): boolean {
  return LOWERCASE_NAME.test(name);
}

function checkNames(call: ParsedCall, names: readonly (string | undefined)[]): string | undefined {
  for (const name of names) {
    if (name === undefined || !LOWERCASE_NAME.test(name)) {
      return `${call.name} assigns ${clip(name ?? "a computed name")}: only plain lower-case names are known to be harmless`;
    }
  }
  return undefined;
}

const SET_OPTIONS = new Set(["errexit", "nounset", "pipefail", "xtrace", "verbose", "noglob", "noclobber"]);
const SHOPT_OPTIONS = new Set([
  "nullglob",
  "globstar",
  "dotglob",
  "extglob",
  "nocaseglob",
  "failglob",
  "nocasematch",
  "lastpipe",
]);

function checkSet(args: readonly Word[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as Word;
    if (word.text === "--") return undefined;
    if (word.dynamic || !/^[-+][euxvfCno]+$/.test(word.text))
      return `set ${clip(word.text)} is not known to be harmless`;
    if (word.text.endsWith("o")) {
      const option = args[index + 1];
      if (option === undefined) return undefined;
      if (!SET_OPTIONS.has(option.text)) return `set -o ${clip(option.text)} is not known to be harmless`;
      index++;
    }
  }
  return undefined;
}

function checkTest(call: { name: string; args: readonly Word[] }): string | undefined {
  const args = call.args;
  for (let index = 0; index < args.length; index++) {
    const text = (args[index] as Word).text;
    if (text === "-v" || text === "-R") return `${call.name} -v evaluates an array subscript, which can run commands`;
    // Only [[ evaluates both sides of -eq and friends as arithmetic; test and [ compare numbers.
    if (call.name === "[[" && /^-(?:eq|ne|lt|le|gt|ge)$/.test(text)) {
      for (const side of [args[index - 1], args[index + 1]]) {
        if (
          side === undefined ||
          !/^(?:-?[0-9]+|\$[#?$!])$/.test(side.text) ||
          (side.dynamic && !side.text.startsWith("$"))
        ) {
          return `[[ ${text} ]] evaluates its operands as arithmetic, which can run commands hidden in a variable`;
        }
      }
    }
  }
  return undefined;
}

function checkCd(call: ParsedCall): string | undefined {
  if (call.operands.length > 1) return `${call.name} with several operands`;
  const target = call.operands[0];
  if (target === undefined) return undefined;
  if (target.dynamic || target.glob) return `${call.name} to a folder computed at run time`;
  if (target.text === "-") return `${call.name} - goes back to a folder not known here`;
  const normalized = posix.normalize(target.text);
  if (target.text.startsWith("/") && normalized === "/") {
    return `${call.name} / makes relative paths reach the whole file system, /proc included`;
  }
  // /dev/fd/.. is /proc/self: relative paths from there read a process's secrets.
  if (/^\/(?:dev|proc|sys)(?:\/|$)/.test(normalized) || target.text.includes("/dev/")) {
    return `${call.name} into ${clip(target.text)} makes relative paths reach process information`;
  }
  return undefined;
}

function numbersOnly(call: ParsedCall): string | undefined {
  if (call.operands.length > 1) return `${call.name} with several operands`;
  const operand = call.operands[0];
  return operand === undefined || /^(?:[0-9]+|\$\?)$/.test(operand.text)
    ? undefined
    : `${call.name} ${clip(operand.text)}: only literal numbers are known to be harmless`;
}

function noOperands(call: ParsedCall): string | undefined {
  return call.operands.length === 0 ? undefined : `${call.name} with operands changes the shell's state`;
}

// ---------------------------------------------------------------------------------------
// Package managers: listing their own local state only (no network, no project scripts)

function packageReads(reads: readonly string[], options: OptionSpec, version = true): Shape {
  return {
    options,
    check: (call) => {
      const subcommand = call.operands[0]?.text;
      if (subcommand === undefined && version && has(call, "--version", "-v", "-V")) return undefined;
      if (subcommand !== undefined && !call.operands[0]?.dynamic && reads.includes(subcommand)) return undefined;
      return `${`${call.name} ${subcommand ?? ""}`.trimEnd()} modifies packages, runs project scripts or reaches the network`;
    },
  };
}

// ---------------------------------------------------------------------------------------
// The table

const SHAPES = new Map<string, Shape>();

function define(names: string, shape: Shape): void {
  for (const name of names.split(" ")) SHAPES.set(name, shape);
}

// Reviewed: none of the options of these programs writes a file, runs a program or opens a
// connection, so any option is fine and their operands are only data or paths to read.
define(
  "cat tac nl head tail wc cut tr paste fold rev od hexdump strings seq basename dirname readlink realpath pwd " +
    "whoami id groups logname arch uname nproc tty printenv true false : factor expand unexpand fmt pr column " +
    "look join comm cmp diff md5sum sha1sum sha224sum sha256sum sha384sum sha512sum shasum b2sum cksum sum " +
    "base64 base32 numfmt tsort yes sleep stat du df free uptime w who users last lsblk lscpu lsusb lspci " +
    "vmstat iostat lsof netstat ps locale getconf cal tput clear jq grep egrep fgrep zcat bzcat xzcat bc expr " +
    "echo ls which whereis type help fc-list times whatis apropos popd dirs",
  ANY,
);
define("printf", { options: spec(""), optionsFirst: true });
define("date", {
  options: spec("d:f:I::r:Ru", "date= file= iso-8601? rfc-3339= rfc-email reference= utc universal debug resolution"),
  check: (call) =>
    call.operands.every((operand) => operand.text.startsWith("+"))
      ? undefined
      : "date with an operand that is not a +format sets the clock",
});
define("hostname", {
  options: spec("fsiIdAay", "fqdn long short ip-address all-ip-addresses all-fqdns domain alias nis yp"),
  check: (call) => (call.operands.length === 0 ? undefined : "hostname NAME renames the host"),
});
define("sort", {
  options: spec(
    "bdfgiMhnRrVcCmsuzk:t:S:",
    "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort " +
      "human-numeric-sort numeric-sort random-sort random-source= reverse sort= version-sort check? merge stable " +
      "unique zero-terminated key= field-separator= buffer-size= parallel= debug files0-from=",
  ),
});
define("uniq", {
  options: spec(
    "cdDf:is:uw:z",
    "count repeated all-repeated? skip-fields= ignore-case skip-chars= unique zero-terminated check-chars= group?",
  ),
  check: (call) => (call.operands.length <= 1 ? undefined : "uniq INPUT OUTPUT writes OUTPUT"),
});
define("tree", {
  options: spec(
    "adfilxpusghDFvtrcUNQSnCAJL:P:I:",
    "noreport dirsfirst filesfirst du prune gitignore charset= filelimit= timefmt= sort= matchdirs ignore-case info",
  ),
});
define("file", {
  options: spec(
    "bcEhiklLNnrsSvzZ0e:F:f:m:P:",
    "brief mime mime-type mime-encoding no-dereference dereference keep-going list raw special-files uncompress " +
      "uncompress-noreport separator= files-from= magic-file= exclude= exclude-quiet= extension print0 no-pad parameter=",
  ),
});
define("rg", {
  options: spec(
    "iSswxvnNlcFuLoHhqIPEUzaj.0C:A:B:t:T:g:e:f:M:m:r:d:",
    "ignore-case smart-case case-sensitive word-regexp line-regexp invert-match line-number no-line-number " +
      "files-with-matches files-without-match count count-matches context= after-context= before-context= type= " +
      "type-not= glob= iglob= regexp= file= fixed-strings unrestricted follow null only-matching with-filename " +
      "no-filename quiet no-ignore no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global hidden no-hidden " +
      "pcre2 engine= max-count= max-columns= max-columns-preview max-depth= max-filesize= threads= text binary " +
      "no-binary search-zip replace= json no-json stats vimgrep column no-column heading no-heading color= " +
      "colors= pretty sort= sortr= trim passthru multiline multiline-dotall crlf encoding= files type-list " +
      "byte-offset null-data one-file-system no-messages no-config",
  ),
});
// A `+cmd` operand is run as pager commands (`+!sh`, `+|cmd`, `+s file`): only jumps and searches are allowed.
const PAGER_JUMP = /^\+(?:[0-9]+|[gGF]|\/[^\n\r]*)$/;
const checkPager = (call: ParsedCall): string | undefined =>
  call.operands.every((operand) => !operand.text.startsWith("+") || (PAGER_JUMP.test(operand.text) && !operand.dynamic))
    ? undefined
    : `${call.name} +command runs pager commands, which can run shell commands or write files`;
define("less", {
  options: spec(
    "NSRrFXiIsnEeqQMmgGwWJaBcdfKLx:j:z:p:y:b:h:#:",
    "LINE-NUMBERS chop-long-lines RAW-CONTROL-CHARS raw-control-chars quit-if-one-screen no-init ignore-case IGNORE-CASE squeeze-blank-lines line-numbers quiet silent QUIET SILENT LONG-PROMPT long-prompt tabs= jump-target= pattern= shift= no-lessopen mouse",
  ),
  check: checkPager,
});
define("more", {
  options: spec("dlfpcsun:", "silent logical no-pause print-over clean-print squeeze plain lines="),
  numeric: true,
  check: checkPager,
});
define("man", { options: spec("afkwWs:S:M:", "all whatis apropos where path location-cat sections= manpath=") });
define("info", { options: spec("") });
define("tee", {
  options: spec("aip", "append ignore-interrupts output-error?"),
  check: (call) =>
    call.operands.every((operand) => ["/dev/null", "/dev/stdout", "/dev/stderr"].includes(operand.text))
      ? undefined
      : "tee writes files",
});
define("sed gsed", { options: SED, check: checkSed });
define("awk gawk mawk nawk", { options: AWK, check: checkAwk });
define("find", { options: "any", whole: checkFind });
define("tar", { options: "any", whole: checkTar });
define("git", { options: "any", whole: checkGit });
define("test [ [[", { options: "any", whole: (args, name) => checkTest({ name, args }), splitSafe: true });
define("set", { options: "any", whole: checkSet });
define("cd pushd", { options: spec("LPe@"), optionsFirst: true, check: checkCd });
define("read", {
  options: spec("rsa:d:n:N:p:t:u:"),
  optionsFirst: true,
  check: (call) =>
    checkNames(call, [
      ...call.options.filter((option) => option.name === "-a").map((option) => option.value),
      ...call.operands.map((operand) => (operand.dynamic ? undefined : operand.text)),
    ]),
});
define("unset", {
  options: spec("fvn"),
  optionsFirst: true,
  check: (call) =>
    checkNames(
      call,
      call.operands.map((operand) => (operand.dynamic ? undefined : operand.text)),
    ),
});
define("shopt", {
  options: spec("psuq"),
  check: (call) =>
    !has(call, "-s", "-u") || call.operands.every((operand) => SHOPT_OPTIONS.has(operand.text))
      ? undefined
      : "shopt sets an option that is not known to be harmless",
});
define("shift return exit", { options: spec(""), optionsFirst: true, check: numbersOnly });
define("wait", { options: spec("fn"), optionsFirst: true });
define("jobs", { options: spec("lnprs"), optionsFirst: true });
define("hash history", { options: spec(""), check: noOperands });
define("ulimit", { options: spec("a"), check: noOperands });
define("umask", { options: spec("pS"), check: noOperands });
define("kill", {
  options: "any",
  whole: (args) =>
    ["-l", "-L", "--list", "--table"].includes(args[0]?.text ?? "") ? undefined : "kill sends a signal to processes",
});
define("crontab", {
  options: spec("lu:"),
  check: (call) => (has(call, "-l") ? undefined : "crontab without -l replaces scheduled jobs"),
});
define("systemctl", {
  options: spec(
    "alqn:t:p:o:",
    "no-pager full all type= state= user system lines= output= property= no-legend plain value quiet",
  ),
  check: (call) =>
    call.operands.length === 0 ||
    "status show cat list-units list-unit-files list-timers list-sockets list-dependencies is-active is-enabled is-failed is-system-running get-default"
      .split(" ")
      .includes(call.operands[0]?.text ?? "")
      ? undefined
      : `systemctl ${clip(call.operands[0]?.text ?? "")} changes system services`,
});
define("sh bash dash", {
  options: spec("cexuvfCno:", "norc noprofile posix"),
  check: (call) =>
    has(call, "-c") ? undefined : `${call.name} runs a script or standard input, which is not analyzed`,
});
define(
  "npm",
  packageReads(
    ["ls", "list", "ll", "la", "root", "prefix", "explain", "why"],
    spec(
      "algpv",
      "all long parseable global json depth= prod production dev omit= include= link unicode workspace= workspaces include-workspace-root version",
    ),
  ),
);
define(
  "pip",
  packageReads(
    ["list", "show", "freeze", "check"],
    spec(
      "lvfV",
      "local user not-required format= verbose files path= exclude= exclude-editable include-editable editable version",
    ),
  ),
);
define(
  "apt apt-cache",
  packageReads(
    ["list", "show", "search", "policy", "depends", "rdepends", "showpkg", "madison", "pkgnames", "stats"],
    spec("", "installed upgradable all-versions full names-only version"),
  ),
);
define("go", packageReads(["version", "env"], spec("", "json"), false));
