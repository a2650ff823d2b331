// Classifies a shell command line as read-only, write or destructive, for the permission
// checks of shell-like tools. It parses quoting, operators, substitutions and wrappers
// itself in linear time and bounded depth, never throws, and over-approximates: anything it
// cannot analyze is at least write. It never runs, expands or resolves anything.

import { posix } from "node:path";

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
 * (changes files, the network or the system in ways that are usually recoverable) or
 * `destructive` (irrecoverable loss, root writes, code downloaded and run).
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
 * `../../etc/passwd` counts as an ordinary path; a heredoc body is classified as commands only
 * when fed to a shell (its `$(…)` always); `>` inside `[[ ]]` or an awk program counts as a
 * write. Time is linear in the input length; input longer than 1 MiB is destructive unparsed.
 */
export function classifyCommand(commandLine: string): CommandClassification {
  if (commandLine.trim() === "") return { risk: "read", reasons: ["empty"], commands: [] };
  if (commandLine.length > MAX_INPUT_LENGTH) {
    return {
      risk: "destructive",
      reasons: [`command line longer than ${MAX_INPUT_LENGTH} characters is not analyzed`],
      commands: [],
    };
  }
  try {
    const findings = analyzeText(commandLine, 0, false, newContext());
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

const MAX_NESTING_DEPTH = 8;
const MAX_INPUT_LENGTH = 1_048_576;
const UNTERMINATED_QUOTE = "unterminated quote: cannot be parsed reliably";

const RISK_ORDER: Readonly<Record<CommandRisk, number>> = { read: 0, write: 1, destructive: 2 };

class NestingTooDeepError extends Error {}

function checkDepth(depth: number): void {
  if (depth > MAX_NESTING_DEPTH) throw new NestingTooDeepError();
}

// ---------------------------------------------------------------------------------------
// Tokens

/** One shell word after quote removal; expansions are kept verbatim and mark it dynamic. */
interface Word {
  readonly kind: "word";
  readonly text: string;
  readonly quoted: boolean;
  /** Contains a parameter expansion or a substitution: its value is known only at run time. */
  readonly dynamic: boolean;
  /** Contains an unquoted `*`, `?`, `[…]` or a `{…}` brace expansion. */
  readonly glob: boolean;
  /** Length of `text` before the first quoted character, to recognise `NAME=value`. */
  readonly unquotedPrefixLength: number;
  /** An arithmetic command `(( … ))`: evaluates, runs nothing but its substitutions. */
  readonly arithmetic: boolean;
  readonly substitutions: readonly Script[];
}

type OperatorText = "|" | "|&" | "&&" | "||" | ";" | "&" | ";;" | ")";

interface Operator {
  readonly kind: "operator";
  readonly operator: OperatorText;
}

interface Heredoc {
  readonly body: string;
  readonly substitutions: readonly Script[];
}

interface Redirect {
  readonly kind: "redirect";
  readonly operator: string;
  readonly fd: string;
  readonly target: Word | undefined;
  // Filled in when the scanner reaches the end of the line the heredoc starts on.
  heredoc: Heredoc | undefined;
}

interface Group {
  readonly kind: "group";
  readonly tokens: Script;
}

type Token = Word | Operator | Redirect | Group;
type Script = readonly Token[];

interface ParseState {
  readonly problems: Set<string>;
}

interface PendingHeredoc {
  readonly redirect: Redirect;
  readonly delimiter: string;
  readonly stripTabs: boolean;
  readonly expands: boolean;
  readonly depth: number;
}

const WORD_BREAK = " \t\r\n;&|()<>";
const REDIRECT_OPERATORS = ["&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"];

class WordBuilder {
  text = "";
  quoted = false;
  dynamic = false;
  glob = false;
  unquotedPrefixLength = -1;
  readonly substitutions: Script[] = [];
  braceOpen = false;
  bracketOpen = false;

  markQuoted(): void {
    if (!this.quoted) {
      this.quoted = true;
      this.unquotedPrefixLength = this.text.length;
    }
  }

  build(arithmetic = false): Word {
    return {
      kind: "word",
      text: this.text,
      quoted: this.quoted,
      dynamic: this.dynamic,
      glob: this.glob,
      unquotedPrefixLength: this.quoted ? this.unquotedPrefixLength : this.text.length,
      arithmetic,
      substitutions: this.substitutions,
    };
  }
}

/**
 * A single left-to-right pass over the input. Nested constructs recurse on the same scanner,
 * so each character is consumed once; only backtick bodies, heredoc bodies and a failed
 * `$((` attempt are scanned again, and those rescans are bounded by the nesting depth.
 */
class Scanner {
  private position = 0;
  private readonly pendingHeredocs: PendingHeredoc[] = [];

  constructor(
    private readonly input: string,
    private readonly state: ParseState,
  ) {}

  parseScript(depth: number, closedByParen: boolean): Token[] {
    checkDepth(depth);
    const tokens: Token[] = [];
    const input = this.input;
    for (;;) {
      this.skipBlanks();
      if (this.position >= input.length) {
        if (closedByParen) {
          this.state.problems.add("unterminated subshell or command substitution: cannot be parsed reliably");
        }
        return tokens;
      }
      const char = input.charAt(this.position);
      const next = input.charAt(this.position + 1);
      if (char === "#") {
        const end = input.indexOf("\n", this.position);
        this.position = end === -1 ? input.length : end;
      } else if (char === "\n") {
        this.position++;
        tokens.push(operator(";"));
        this.readHeredocBodies();
      } else if (char === ")") {
        this.position++;
        if (closedByParen) return tokens;
        tokens.push(operator(")"));
      } else if (char === "(") {
        if (next === "(") {
          const start = this.position;
          const substitutions = this.tryArithmetic(this.position + 2, depth + 1);
          if (substitutions !== undefined) {
            const builder = new WordBuilder();
            builder.text = input.slice(start, this.position);
            builder.substitutions.push(...substitutions);
            tokens.push(builder.build(true));
            continue;
          }
        }
        this.position++;
        tokens.push({ kind: "group", tokens: this.parseScript(depth + 1, true) });
      } else if (char === ";") {
        if (next === ";" || next === "&") {
          this.position += 2;
          if (input.charAt(this.position) === "&") this.position++;
          tokens.push(operator(";;"));
        } else {
          this.position++;
          tokens.push(operator(";"));
        }
      } else if (char === "&") {
        if (next === "&") {
          this.position += 2;
          tokens.push(operator("&&"));
        } else if (next === ">") {
          tokens.push(this.parseRedirect("", depth));
        } else {
          this.position++;
          tokens.push(operator("&"));
        }
      } else if (char === "|") {
        if (next === "|" || next === "&") {
          this.position += 2;
          tokens.push(operator(next === "|" ? "||" : "|&"));
        } else {
          this.position++;
          tokens.push(operator("|"));
        }
      } else if ((char === "<" || char === ">") && next !== "(") {
        tokens.push(this.parseRedirect("", depth));
      } else {
        const word = this.parseWord(depth);
        const after = input.charAt(this.position);
        const isFd = /^[0-9]+$/.test(word.text) && !word.quoted;
        if (isFd && (after === "<" || after === ">") && input.charAt(this.position + 1) !== "(") {
          tokens.push(this.parseRedirect(word.text, depth));
        } else {
          tokens.push(word);
        }
      }
    }
  }

  /** Finds `$(`, backticks and `${` in a heredoc body, which the shell expands. */
  scanExpansions(depth: number): Script[] {
    const builder = new WordBuilder();
    while (this.position < this.input.length) {
      const char = this.input.charAt(this.position);
      if (char === "\\") this.position += 2;
      else if (char === "$") this.handleDollar(builder, depth, true);
      else if (char === "`") this.handleBacktick(builder, depth);
      else this.position++;
    }
    return builder.substitutions;
  }

  private skipBlanks(): void {
    const input = this.input;
    for (;;) {
      const char = input.charAt(this.position);
      if (char === " " || char === "\t" || char === "\r") this.position++;
      else if (char === "\\" && input.charAt(this.position + 1) === "\n") this.position += 2;
      else return;
    }
  }

  private parseRedirect(fd: string, depth: number): Redirect {
    const input = this.input;
    const found = REDIRECT_OPERATORS.find((candidate) => input.startsWith(candidate, this.position)) ?? ">";
    this.position += found.length;
    this.skipBlanks();
    const char = input.charAt(this.position);
    const next = input.charAt(this.position + 1);
    const startsWord = char !== "" && (!WORD_BREAK.includes(char) || ((char === "<" || char === ">") && next === "("));
    const target = startsWord ? this.parseWord(depth) : undefined;
    const redirect: Redirect = { kind: "redirect", operator: found, fd, target, heredoc: undefined };
    if ((found === "<<" || found === "<<-") && target !== undefined) {
      this.pendingHeredocs.push({
        redirect,
        delimiter: target.text,
        stripTabs: found === "<<-",
        expands: !target.quoted,
        depth,
      });
    }
    return redirect;
  }

  private readHeredocBodies(): void {
    const input = this.input;
    for (const pending of this.pendingHeredocs.splice(0)) {
      const bodyStart = this.position;
      let body: string | undefined;
      while (body === undefined) {
        if (this.position >= input.length) {
          body = input.slice(bodyStart);
          break;
        }
        const newline = input.indexOf("\n", this.position);
        const lineEnd = newline === -1 ? input.length : newline;
        let line = input.slice(this.position, lineEnd);
        if (pending.stripTabs) line = line.replace(/^\t+/, "");
        if (line === pending.delimiter) body = input.slice(bodyStart, this.position);
        this.position = newline === -1 ? input.length : newline + 1;
      }
      const substitutions = pending.expands ? new Scanner(body, this.state).scanExpansions(pending.depth) : [];
      pending.redirect.heredoc = { body, substitutions };
    }
  }

  private parseWord(depth: number): Word {
    const input = this.input;
    const builder = new WordBuilder();
    while (this.position < input.length) {
      const char = input.charAt(this.position);
      if (WORD_BREAK.includes(char)) {
        const isProcessSubstitution =
          (char === "<" || char === ">") &&
          input.charAt(this.position + 1) === "(" &&
          builder.text === "" &&
          !builder.quoted;
        if (!isProcessSubstitution) break;
        const start = this.position;
        this.position += 2;
        builder.dynamic = true;
        builder.substitutions.push(this.parseScript(depth + 1, true));
        builder.text += input.slice(start, this.position);
      } else if (char === "\\") {
        const next = input.charAt(this.position + 1);
        this.position += 2;
        if (next !== "\n") {
          builder.markQuoted();
          builder.text += next;
        }
      } else if (char === "'") {
        builder.markQuoted();
        const end = input.indexOf("'", this.position + 1);
        if (end === -1) {
          this.state.problems.add(UNTERMINATED_QUOTE);
          builder.text += input.slice(this.position + 1);
          this.position = input.length;
        } else {
          builder.text += input.slice(this.position + 1, end);
          this.position = end + 1;
        }
      } else if (char === '"') {
        builder.markQuoted();
        this.position++;
        this.scanDoubleQuoted(builder, depth);
      } else if (char === "$") {
        this.handleDollar(builder, depth, false);
      } else if (char === "`") {
        this.handleBacktick(builder, depth);
      } else {
        // `[` alone is the test command; only `[…]` is a pattern.
        if (char === "*" || char === "?" || (char === "]" && builder.bracketOpen)) builder.glob = true;
        if (char === "[") builder.bracketOpen = true;
        // Brace expansion turns one word into several, like a glob: `{rm,-rf,/}` is rm -rf /.
        if (char === "{") builder.braceOpen = true;
        if (char === "}" && builder.braceOpen) builder.glob = true;
        builder.text += char;
        this.position++;
      }
    }
    return builder.build();
  }

  private scanDoubleQuoted(builder: WordBuilder, depth: number): void {
    const input = this.input;
    while (this.position < input.length) {
      const char = input.charAt(this.position);
      if (char === '"') {
        this.position++;
        return;
      }
      if (char === "\\") {
        const next = input.charAt(this.position + 1);
        if (next === "$" || next === "`" || next === '"' || next === "\\") {
          builder.text += next;
          this.position += 2;
        } else if (next === "\n") {
          this.position += 2;
        } else {
          builder.text += "\\";
          this.position++;
        }
      } else if (char === "$") {
        this.handleDollar(builder, depth, true);
      } else if (char === "`") {
        this.handleBacktick(builder, depth);
      } else {
        builder.text += char;
        this.position++;
      }
    }
    this.state.problems.add(UNTERMINATED_QUOTE);
  }

  private handleDollar(builder: WordBuilder, depth: number, inDoubleQuotes: boolean): void {
    const input = this.input;
    const start = this.position;
    const next = input.charAt(this.position + 1);
    if (next === "(") {
      builder.dynamic = true;
      if (input.charAt(this.position + 2) === "(") {
        const substitutions = this.tryArithmetic(this.position + 3, depth + 1);
        if (substitutions !== undefined) {
          builder.substitutions.push(...substitutions);
          builder.text += input.slice(start, this.position);
          return;
        }
      }
      this.position += 2;
      builder.substitutions.push(this.parseScript(depth + 1, true));
      builder.text += input.slice(start, this.position);
    } else if (next === "{") {
      builder.dynamic = true;
      this.position += 2;
      this.scanBraced(builder, depth + 1, inDoubleQuotes);
      builder.text += input.slice(start, this.position);
    } else if (next === "'" && !inDoubleQuotes) {
      this.position += 2;
      this.scanAnsiC(builder);
    } else if (next === '"' && !inDoubleQuotes) {
      // $"…" is a translatable string: the same as "…" for our purposes.
      this.position++;
    } else if (/[A-Za-z_]/.test(next)) {
      builder.dynamic = true;
      this.position += 2;
      while (/[A-Za-z0-9_]/.test(input.charAt(this.position))) this.position++;
      builder.text += input.slice(start, this.position);
    } else if (next !== "" && "0123456789@*#?$!-".includes(next)) {
      builder.dynamic = true;
      this.position += 2;
      builder.text += input.slice(start, this.position);
    } else {
      builder.text += "$";
      this.position++;
    }
  }

  private scanAnsiC(builder: WordBuilder): void {
    const input = this.input;
    builder.markQuoted();
    while (this.position < input.length) {
      const char = input.charAt(this.position);
      if (char === "'") {
        this.position++;
        return;
      }
      if (char === "\\") {
        const next = input.charAt(this.position + 1);
        const simple: Record<string, string> = { n: "\n", t: "\t", "\\": "\\", "'": "'", '"': '"' };
        const decoded = simple[next];
        // \x72, octal and \u escapes can spell any program name: treat the word as unknown.
        if (decoded === undefined) builder.dynamic = true;
        builder.text += decoded ?? `\\${next}`;
        this.position += 2;
      } else {
        builder.text += char;
        this.position++;
      }
    }
    this.state.problems.add(UNTERMINATED_QUOTE);
  }

  private scanBraced(builder: WordBuilder, depth: number, inDoubleQuotes: boolean): void {
    checkDepth(depth);
    const input = this.input;
    while (this.position < input.length) {
      const char = input.charAt(this.position);
      if (char === "}") {
        this.position++;
        return;
      }
      if (char === "\\") {
        this.position += 2;
      } else if (char === "'" && !inDoubleQuotes) {
        const end = input.indexOf("'", this.position + 1);
        this.position = end === -1 ? input.length : end + 1;
      } else if (char === '"') {
        this.position++;
        this.scanDoubleQuoted(builder, depth);
      } else if (char === "$") {
        this.handleDollar(builder, depth, true);
      } else if (char === "`") {
        this.handleBacktick(builder, depth);
      } else {
        this.position++;
      }
    }
    this.state.problems.add("unterminated ${…}: cannot be parsed reliably");
  }

  private handleBacktick(builder: WordBuilder, depth: number): void {
    const input = this.input;
    const start = this.position;
    builder.dynamic = true;
    this.position++;
    let content = "";
    let runStart = this.position;
    let closed = false;
    while (this.position < input.length) {
      const char = input.charAt(this.position);
      if (char === "\\") {
        const next = input.charAt(this.position + 1);
        if (next === "`" || next === "\\" || next === "$") {
          content += input.slice(runStart, this.position) + next;
          this.position += 2;
          runStart = this.position;
        } else {
          this.position += 2;
        }
      } else if (char === "`") {
        closed = true;
        break;
      } else {
        this.position++;
      }
    }
    this.position = Math.min(this.position, input.length);
    content += input.slice(runStart, this.position);
    if (closed) this.position++;
    else this.state.problems.add("unterminated backtick: cannot be parsed reliably");
    builder.text += input.slice(start, this.position);
    builder.substitutions.push(new Scanner(content, this.state).parseScript(depth + 1, false));
  }

  /**
   * Reads `(( … ))` arithmetic starting after the opening parentheses. Returns the command
   * substitutions inside, or undefined (position restored) when the text is not arithmetic
   * after all, such as `$((cd x) && ls)`, so the caller reads it as nested subshells.
   */
  private tryArithmetic(start: number, depth: number): Script[] | undefined {
    checkDepth(depth);
    const input = this.input;
    const saved = this.position;
    const builder = new WordBuilder();
    let parentheses = 0;
    this.position = start;
    while (this.position < input.length) {
      const char = input.charAt(this.position);
      if (char === "(") {
        parentheses++;
        this.position++;
      } else if (char === ")") {
        if (parentheses > 0) {
          parentheses--;
          this.position++;
        } else if (input.charAt(this.position + 1) === ")") {
          this.position += 2;
          return builder.substitutions;
        } else {
          break;
        }
      } else if (char === "$") {
        this.handleDollar(builder, depth, true);
      } else if (char === "`") {
        this.handleBacktick(builder, depth);
      } else if (char === "\\") {
        this.position += 2;
      } else {
        this.position++;
      }
    }
    this.position = saved;
    return undefined;
  }
}

function operator(text: OperatorText): Operator {
  return { kind: "operator", operator: text };
}

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
  readonly functions: Set<string>;
  /** Function bodies being read, innermost last, with their open-brace count. */
  readonly functionBodies: { name: string; braces: number }[];
  /** How many bodies of each function name are open: a lookup that stays O(1) under hostile nesting. */
  readonly openFunctions: Map<string, number>;
  pendingFunction: string | undefined;
}

function newContext(): Context {
  return { functions: new Set(), functionBodies: [], openFunctions: new Map(), pendingFunction: undefined };
}

function analyzeText(text: string, depth: number, argumentsUnknown: boolean, context: Context): Findings {
  checkDepth(depth);
  const state: ParseState = { problems: new Set() };
  const tokens = new Scanner(text, state).parseScript(depth, false);
  const findings = analyzeScript(tokens, depth, argumentsUnknown, context);
  for (const problem of state.problems) findings.flag("write", problem);
  return findings;
}

// ---------------------------------------------------------------------------------------
// Scripts, pipelines and stages

interface StageResult {
  readonly findings: Findings;
  /** This stage's output may carry content fetched from the network. */
  readonly network: boolean;
  /** This stage runs whatever arrives on its standard input as code. */
  readonly readsStdinAsCode: string | undefined;
  readonly startsCase: boolean;
}

function analyzeScript(tokens: Script, depth: number, argumentsUnknown: boolean, context: Context): Findings {
  const findings = new Findings();
  let stageItems: Token[] = [];
  let pipeline: StageResult[] = [];
  // Inside `case`, the words before a `)` are a pattern, not a command. A stray `)` or `;;`
  // outside a case is a syntax error, and then every stage is still classified.
  let sawCase = false;
  let expectingCasePattern = false;

  const finishPipeline = (): void => {
    let networkUpstream = false;
    for (const stage of pipeline) {
      const interpreter = stage.readsStdinAsCode;
      if (interpreter !== undefined && networkUpstream) {
        findings.flag("destructive", `piping network content into ${interpreter} runs downloaded code`);
      }
      networkUpstream ||= stage.network;
    }
    pipeline = [];
  };

  // `a|b)` alternatives: held back until the `)` shows they were a pattern, not a pipeline.
  let heldAlternatives: Token[][] = [];

  const analyzeItems = (items: readonly Token[], isPattern: boolean): StageResult => {
    const result = analyzeStage(items, depth, argumentsUnknown, context, isPattern);
    findings.merge(result.findings);
    pipeline.push(result);
    return result;
  };

  const finishStage = (endedBy: OperatorText | undefined): void => {
    const items = stageItems;
    stageItems = [];
    if (items.length === 0) return;
    if (expectingCasePattern && endedBy === "|") {
      heldAlternatives.push(items);
      return;
    }
    const isPattern = endedBy === ")" && expectingCasePattern;
    for (const held of heldAlternatives) analyzeItems(held, isPattern);
    heldAlternatives = [];
    const result = analyzeItems(items, isPattern);
    if (result.startsCase) {
      sawCase = true;
      expectingCasePattern = endedBy !== ")";
    } else if (isPattern) expectingCasePattern = false;
  };

  for (const token of tokens) {
    if (token.kind !== "operator") {
      stageItems.push(token);
      continue;
    }
    finishStage(token.operator);
    if (token.operator !== "|" && token.operator !== "|&") finishPipeline();
    if (token.operator === ";;" && sawCase) expectingCasePattern = true;
  }
  finishStage(undefined);
  for (const held of heldAlternatives) analyzeItems(held, false);
  finishPipeline();
  return findings;
}

const SKIPPED_KEYWORDS = new Set(["!", "if", "then", "else", "elif", "fi", "while", "until", "do", "done", "esac"]);
const HEADER_KEYWORDS = new Set(["for", "select", "case"]);
const FUNCTION_KEYWORD = new Set(["function"]);

function isKeyword(word: Word, keywords: ReadonlySet<string>): boolean {
  return !word.quoted && !word.dynamic && keywords.has(word.text);
}

function analyzeStage(
  items: readonly Token[],
  depth: number,
  argumentsUnknown: boolean,
  context: Context,
  isPattern: boolean,
): StageResult {
  const findings = new Findings();
  const nested = new Findings();
  const redirects: Redirect[] = [];
  const ordered: (Word | Group)[] = [];

  for (const item of items) {
    if (item.kind === "word") {
      for (const substitution of item.substitutions) {
        nested.merge(analyzeScript(substitution, depth + 1, false, context));
      }
      ordered.push(item);
    } else if (item.kind === "redirect") {
      redirects.push(item);
      for (const substitution of item.target?.substitutions ?? []) {
        nested.merge(analyzeScript(substitution, depth + 1, false, context));
      }
      for (const substitution of item.heredoc?.substitutions ?? []) {
        nested.merge(analyzeScript(substitution, depth + 1, false, context));
      }
    } else if (item.kind === "group") {
      ordered.push(item);
    }
  }
  const substitutionNetwork = nested.network;
  const done = (network: boolean, readsStdinAsCode: string | undefined, startsCase = false): StageResult => {
    findings.merge(nested);
    return { findings, network: network || substitutionNetwork, readsStdinAsCode, startsCase };
  };
  if (isPattern) return done(false, undefined);

  for (const redirect of redirects) classifyRedirect(redirect, findings);

  let index = 0;
  for (;;) {
    const item = ordered[index];
    const following = ordered[index + 1];
    if (item === undefined || item.kind !== "word") break;
    if (isKeyword(item, HEADER_KEYWORDS)) {
      // `for x in …`, `select …` and `case … in` list words, not commands.
      return done(false, undefined, item.text === "case");
    }
    if (isKeyword(item, SKIPPED_KEYWORDS)) {
      index++;
    } else if (!item.quoted && !item.dynamic && item.text === "{") {
      if (context.pendingFunction !== undefined) {
        const name = context.pendingFunction;
        context.functionBodies.push({ name, braces: 1 });
        context.openFunctions.set(name, (context.openFunctions.get(name) ?? 0) + 1);
        context.pendingFunction = undefined;
      } else {
        const body = context.functionBodies.at(-1);
        if (body !== undefined) body.braces++;
      }
      index++;
    } else if (!item.quoted && !item.dynamic && item.text === "}") {
      const body = context.functionBodies.at(-1);
      if (body !== undefined && --body.braces === 0) {
        context.functionBodies.pop();
        context.openFunctions.set(body.name, (context.openFunctions.get(body.name) ?? 1) - 1);
      }
      index++;
    } else if (isKeyword(item, FUNCTION_KEYWORD) && following?.kind === "word") {
      context.functions.add(following.text);
      context.pendingFunction = following.text;
      index += 2;
      const parentheses = ordered[index];
      if (parentheses?.kind === "group" && parentheses.tokens.length === 0) index++;
    } else if (following?.kind === "group" && following.tokens.length === 0) {
      context.functions.add(item.text);
      context.pendingFunction = item.text;
      index += 2;
    } else {
      break;
    }
  }

  const rest = ordered.slice(index);
  const first = rest[0];
  if (first === undefined) return done(false, undefined);
  context.pendingFunction = undefined;
  if (first.kind === "group") {
    const inner = analyzeScript(first.tokens, depth + 1, argumentsUnknown, context);
    findings.merge(inner);
    if (rest.length > 1) findings.flag("write", "unexpected words after a subshell: cannot be parsed reliably");
    return done(inner.network, undefined);
  }
  const words: Word[] = [];
  for (const item of rest) {
    if (item.kind === "word") {
      words.push(item);
    } else {
      findings.flag("write", "unexpected ( inside a command: cannot be parsed reliably");
      findings.merge(analyzeScript(item.tokens, depth + 1, argumentsUnknown, context));
    }
  }
  const stdinRedirect = redirects
    .filter((redirect) => (redirect.fd === "" || redirect.fd === "0") && redirect.operator.startsWith("<"))
    .at(-1);
  const command = classifySimpleCommand(words, {
    depth,
    context,
    argumentsUnknown,
    stdinRedirect,
    substitutionNetwork,
  });
  findings.merge(command.findings);
  return done(command.network, command.readsStdinAsCode);
}

function classifyRedirect(redirect: Redirect, findings: Findings): void {
  const { operator: op, target } = redirect;
  const label = `redirection ${redirect.fd}${op}`;
  if (op === "<" || op === "<<" || op === "<<-" || op === "<<<") return;
  if (target === undefined) {
    findings.flag("write", `${label} has no target: cannot be parsed reliably`);
    return;
  }
  // `<&…` only reads; `>&2`, `2>&1`, `>&-` duplicate or close descriptors and open no file.
  if (op === "<&") return;
  if (op === ">&" && /^(?:[0-9]+-?|-)$/.test(target.text) && !target.dynamic) return;
  classifyWriteTarget(findings, target.text, target.dynamic, label);
}

// ---------------------------------------------------------------------------------------
// Paths

const SYSTEM_DIRECTORIES = new Set([
  "etc",
  "boot",
  "dev",
  "usr",
  "bin",
  "sbin",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "sys",
  "proc",
  "root",
  "System",
]);
const SENSITIVE_HOME_ENTRIES = new Set([
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".profile",
  ".zshrc",
  ".zprofile",
  ".zshenv",
  ".zlogin",
  ".ssh",
  ".gnupg",
  ".aws",
  ".gitconfig",
]);
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

/** What a handler sees of one command, after wrappers and assignments are stripped. */
interface Call {
  readonly name: string;
  readonly args: readonly Word[];
  readonly findings: Findings;
  readonly environment: StageEnvironment;
  readonly argumentsUnknown: boolean;
  network: boolean;
  readsStdinAsCode: string | undefined;
}

const SENSITIVE_VARIABLES = new Set([
  "PATH",
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH",
  "BASH_ENV",
  "ENV",
  "PROMPT_COMMAND",
  "IFS",
  "SHELLOPTS",
  "PS4",
  "PAGER",
  "GIT_PAGER",
  "MANPAGER",
  "EDITOR",
  "VISUAL",
  "GIT_EDITOR",
  "GIT_EXTERNAL_DIFF",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "LESSOPEN",
  "LESSCLOSE",
  "PYTHONSTARTUP",
  "PYTHONPATH",
  "NODE_OPTIONS",
  "PERL5OPT",
  "PERL5LIB",
  "RUBYOPT",
]);

function assignmentName(word: Word): string | undefined {
  if (word.arithmetic) return undefined;
  const equals = word.text.indexOf("=");
  if (equals <= 0 || equals >= word.unquotedPrefixLength) return undefined;
  const name = word.text.slice(0, equals).replace(/\+$/, "");
  return /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?$/.test(name) ? name.replace(/\[.*$/, "") : undefined;
}

function flagAssignment(word: Word, findings: Findings): void {
  const name = assignmentName(word);
  if (name !== undefined && SENSITIVE_VARIABLES.has(name)) {
    findings.flag("write", `assignment to ${name} can change which program runs`);
  }
}

function programName(text: string): string {
  if (!text.includes("/")) return text;
  // Only the standard locations are trusted to hold the real program: `./ls` may be anything.
  const match = /^(?:\/usr\/local|\/usr|\/opt\/homebrew)?\/s?bin\/([^/]+)$/.exec(text);
  return match?.[1] ?? text;
}

/**
 * Skips options from `index` and returns the index of the first operand. `valueLetters` are
 * short options that take a value (attached or in the next word); `valueLongs` are long
 * options that take one in the next word when written without `=`.
 */
function skipOptions(
  args: readonly Word[],
  index: number,
  valueLetters: string,
  valueLongs: readonly string[] = [],
): number {
  while (index < args.length) {
    const word = args[index];
    if (word === undefined || word.dynamic) return index;
    const text = word.text;
    if (text === "--") return index + 1;
    if (text.startsWith("--")) {
      index += !text.includes("=") && valueLongs.includes(text) ? 2 : 1;
    } else if (text.startsWith("-") && text.length > 1) {
      index++;
      for (let position = 1; position < text.length; position++) {
        if (valueLetters.includes(text.charAt(position))) {
          if (position === text.length - 1) index++;
          break;
        }
      }
    } else {
      return index;
    }
  }
  return index;
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
  for (;;) {
    const word = words[index];
    if (word === undefined) return finish();
    if (word.arithmetic) return finish();
    if (word.dynamic || word.glob) {
      findings.flag("destructive", `command name ${word.text} is computed at run time and cannot be analyzed`);
      return finish();
    }
    const name = programName(word.text);
    const start = index + 1;
    const optionsUpTo = (end: number): readonly Word[] => words.slice(start, end);
    let next: number;
    if (name === "sudo" || name === "doas") {
      next = skipOptions(words, start, name === "sudo" ? "ugCDprtTU" : "uC", [
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
      const options = optionsUpTo(next);
      if (hasFlag(options, "e", ["--edit"])) {
        findings.flag("destructive", `${name} -e edits files as root`);
        return finish();
      }
      if (next >= words.length && hasFlag(options, "si", ["--shell", "--login"])) {
        findings.flag("destructive", `${name} without a command opens a root shell`);
      }
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
          findings.merge(analyzeText(`${inline} ${remainder}`, environment.depth + 1, argumentsUnknown, context));
          return finish();
        }
        if (text === "-u" || text === "--unset" || text === "-C" || text === "--chdir") next++;
        else if (text.startsWith("-") && !text.includes("=")) continue;
        else if (assignmentName(argument) !== undefined) flagAssignment(argument, findings);
        else break;
      }
    } else if (name === "nice" || name === "ionice") {
      next = skipOptions(words, start, name === "nice" ? "n" : "cnpPu", [
        "--adjustment",
        "--class",
        "--classdata",
        "--pid",
        "--pgid",
        "--uid",
      ]);
      if (name === "ionice" && hasFlag(optionsUpTo(next), "pPu", ["--pid", "--pgid", "--uid"])) {
        findings.flag("write", "ionice -p changes the I/O priority of running processes");
        return finish();
      }
    } else if (name === "timeout") {
      // The first operand is the duration; the command follows it.
      next = skipOptions(words, start, "sk", ["--signal", "--kill-after"]) + 1;
    } else if (name === "nohup" || name === "builtin" || name === "coproc") {
      next = start;
    } else if (name === "setsid") {
      next = skipOptions(words, start, "");
    } else if (name === "stdbuf") {
      next = skipOptions(words, start, "ioe", ["--input", "--output", "--error"]);
    } else if (name === "command") {
      if (hasFlag(optionsUpTo(start + 1), "vV")) return finish();
      next = skipOptions(words, start, "");
    } else if (name === "exec") {
      // `exec >log` only redirects the shell's own descriptors, classified with the stage.
      next = skipOptions(words, start, "a");
    } else if (name === "time") {
      next = skipOptions(words, start, "fo", ["--format", "--output"]);
      for (const target of optionValues(optionsUpTo(next), "fo", "o", ["--output"])) {
        classifyWriteTarget(findings, target.text, target.dynamic, "time -o");
      }
    } else if (name === "xargs") {
      next = skipOptions(words, start, "ILnPdEsa", [
        "--max-args",
        "--max-procs",
        "--delimiter",
        "--eof",
        "--max-chars",
        "--arg-file",
        "--max-lines",
      ]);
      // With no command xargs runs echo, which only prints.
      argumentsUnknown = true;
    } else {
      break;
    }
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

  if (context.functions.has(nameWord.text)) {
    if ((context.openFunctions.get(nameWord.text) ?? 0) > 0) {
      commandFindings.flag("destructive", `function ${nameWord.text} calls itself: a fork bomb or unbounded recursion`);
    }
    // Otherwise its body was classified where it was defined.
  } else {
    const handler = HANDLERS.get(name);
    if (handler !== undefined) handler(call);
    else if (READ_ONLY.has(name)) {
      // Reads and prints only; its redirections were classified with the stage.
    } else if (DESTRUCTIVE.has(name) || name.startsWith("mkfs")) {
      commandFindings.flag("destructive", `${name} ${DESTRUCTIVE.get(name) ?? "formats a file system"}`);
    } else if (KNOWN_WRITE.has(name)) {
      commandFindings.flag("write", `${name} can change files or system state`);
    } else if (NETWORK.has(name)) {
      commandFindings.flag("write", `${name} accesses the network`);
      call.network = true;
    } else {
      commandFindings.flag("write", `unknown command "${nameWord.text}"`);
    }
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
// Command tables

const READ_ONLY = new Set(
  (
    "ls cat head tail grep egrep fgrep zgrep ag ack wc cut tr echo printf pwd whoami stat file du df which " +
    "whereis type jq printenv uname id groups ps top htop less more most diff cmp comm md5sum sha1sum " +
    "sha224sum sha256sum sha384sum sha512sum shasum b2sum cksum sum basename dirname realpath readlink test " +
    "[ [[ true false : nl paste column fold rev tac od hexdump strings seq sleep expr cd pushd popd dirs " +
    "unset read shift return exit wait jobs man help info whatis apropos locale nproc getconf tty free " +
    "uptime w who users last lsof lsblk lscpu lsusb lspci vmstat iostat netstat ss ping dig nslookup host " +
    "base64 base32 numfmt fmt pr expand unexpand zcat bzcat xzcat look join tput clear yes let shopt ulimit " +
    "set logname arch hash tsort factor bc cal history unalias fc-list"
  ).split(" "),
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
    "xdg-open code vim vi nvim nano emacs ed service mount umount iptables ufw useradd usermod groupadd passwd " +
    "chpasswd ssh-keygen ssh-add gpg sqlite3 psql mysql redis-cli mongosh pytest jest vitest java npx bunx " +
    "pnpx chattr setfacl sysctl modprobe insmod rmmod"
  ).split(" "),
);

const NETWORK = new Set("http https xh aria2c nc ncat netcat socat telnet ftp sftp tftp fetch lynx w3m".split(" "));

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"]);
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

type Handler = (call: Call) => void;

const HANDLERS = new Map<string, Handler>();

function register(names: string, handler: Handler): void {
  for (const name of names.split(" ")) HANDLERS.set(name, handler);
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

register("rm", (call) => {
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

register("rmdir unlink", (call) => {
  for (const target of operands(call.args, "")) {
    const protectedPath = !target.dynamic && classifyPath(target.text) === "protected";
    call.findings.flag(protectedPath ? "destructive" : "write", `${call.name} deletes ${target.text}`);
  }
  if (call.findings.risk === "read") call.findings.flag("write", `${call.name} deletes files`);
});

register("mkdir touch mktemp", (call) => {
  if (call.name === "mktemp" && hasFlag(call.args, "u", ["--dry-run"])) return;
  const valueLetters = call.name === "touch" ? "dtr" : call.name === "mkdir" ? "m" : "p";
  for (const target of operands(call.args, valueLetters, ["--date", "--reference", "--mode", "--tmpdir"])) {
    const protectedPath = !target.dynamic && classifyPath(target.text) === "protected";
    call.findings.flag(protectedPath ? "destructive" : "write", `${call.name} writes ${target.text}`);
  }
  if (call.findings.risk === "read") call.findings.flag("write", `${call.name} creates files`);
});

register("cp mv ln install rsync", (call) => {
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

register("chmod chown chgrp", (call) => {
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

register("dd", (call) => {
  for (const word of call.args) {
    if (!word.text.startsWith("of=")) continue;
    const target = word.text.slice(3);
    if (!word.dynamic && classifyPath(target) === "discard") continue;
    call.findings.flag("destructive", `dd of=${target} overwrites it with raw data`);
  }
});

register("tee", (call) => {
  for (const target of operands(call.args, "", [])) {
    classifyWriteTarget(call.findings, target.text, target.dynamic, "tee");
  }
});

register("sort", (call) => {
  for (const target of optionValues(call.args, "kStToy", "o", ["--output"])) {
    classifyWriteTarget(call.findings, target.text, target.dynamic, "sort -o");
  }
  if (call.args.some((word) => word.text.startsWith("--compress-program"))) {
    call.findings.flag("write", "sort --compress-program runs a program");
  }
});

register("uniq xxd", (call) => {
  const files = operands(call.args, call.name === "uniq" ? "fsw" : "cgloOs");
  const output = files[1];
  if (output !== undefined) classifyWriteTarget(call.findings, output.text, output.dynamic, call.name);
});

register("tree", (call) => {
  for (const target of optionValues(call.args, "oLPIH", "o", [])) {
    classifyWriteTarget(call.findings, target.text, target.dynamic, "tree -o");
  }
});

register("date", (call) => {
  // Exact match: `-Iseconds` is a format, not -s.
  if (call.args.some((word) => word.text === "-s" || word.text.startsWith("--set"))) {
    call.findings.flag("write", "date -s sets the system clock");
  }
});

register("hostname", (call) => {
  if (call.args.some((word) => !word.text.startsWith("-")) || hasFlag(call.args, "bF", ["--file", "--boot"])) {
    call.findings.flag("write", "hostname NAME renames the host");
  }
});

register("less more", (call) => {
  // `+!cmd` and `+|cmd` run shell commands from inside the pager at start-up.
  if (call.args.some((word) => word.text.startsWith("+") && /[!|]/.test(word.text))) {
    call.findings.flag("write", `${call.name} +! runs a shell command`);
  }
});

register("man", (call) => {
  if (call.args.some((word) => /^(?:-[A-Za-z]*[PH]|--pager|--html)/.test(word.text))) {
    call.findings.flag("write", "man -P runs a chosen pager program");
  }
});

register("rg", (call) => {
  if (call.args.some((word) => word.text.startsWith("--pre"))) {
    call.findings.flag("write", "rg --pre runs a program on every file");
  }
});

register("tar", (call) => {
  const first = call.args[0]?.text ?? "";
  let letters = first.startsWith("-") ? "" : first;
  for (const word of call.args) if (/^-[A-Za-z]+$/.test(word.text)) letters += word.text.slice(1);
  const longs = call.args.map((word) => word.text.split("=")[0] ?? "");
  const listing = (letters.includes("t") || longs.includes("--list")) && !/[cxruA]/.test(letters);
  const writingLongs = ["--create", "--extract", "--get", "--append", "--update", "--delete", "--to-command"];
  if (!listing || longs.some((option) => writingLongs.includes(option))) {
    call.findings.flag("write", "tar creates or extracts files");
  }
});

register("find", (call) => {
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

// --- Text processors with an embedded language -----------------------------------------

register("awk gawk mawk nawk", (call) => {
  const { args, findings, name } = call;
  const programFiles = optionValues(args, "Fvf", "f", ["--file"]);
  if (programFiles.length > 0) {
    findings.flag("write", `${name} -f runs a program file that is not analyzed`);
    return;
  }
  const program = operands(args, "Fv", ["--assign", "--field-separator"])[0];
  if (program === undefined) return;
  if (program.dynamic) findings.flag("write", `${name} program is computed at run time`);
  else if (/system\s*\(|>|\||getline/.test(program.text)) {
    findings.flag("write", `${name} program may run commands or write files (system(), > or |)`);
  }
});

register("sed gsed", (call) => {
  const { args, findings, name } = call;
  const inPlace = args.some((word) => /^-[A-Za-z]*i/.test(word.text) || word.text.startsWith("--in-place"));
  if (inPlace) {
    const files = operands(args, "efl", ["--expression", "--file", "--line-length"]);
    const hasScriptOption = optionValues(args, "efl", "ef", ["--expression", "--file"]).length > 0;
    const targets = hasScriptOption ? files : files.slice(1);
    for (const target of targets) {
      classifyWriteTarget(findings, target.text, target.dynamic, `${name} -i`);
    }
    findings.flag("write", `${name} -i edits files in place`);
    return;
  }
  if (optionValues(args, "efl", "f", ["--file"]).length > 0) {
    findings.flag("write", `${name} -f runs a script file that is not analyzed`);
    return;
  }
  const expressions = optionValues(args, "efl", "e", ["--expression"]);
  const scripts = expressions.length > 0 ? expressions : operands(args, "efl").slice(0, 1);
  for (const script of scripts) {
    // The `w` command and `w`/`e` flags write files or run commands; false positives only cost a prompt.
    if (script.dynamic || /(?:^|[;\n{}/])\s*[wWe](?:\s|$)/.test(script.text)) {
      findings.flag("write", `${name} script may write files or run commands (w or e)`);
    }
  }
});

// --- Version control -----------------------------------------------------------------------

const GIT_READ = new Set(
  (
    "status log diff show rev-parse ls-files ls-tree ls-remote blame annotate describe shortlog grep cat-file " +
    "rev-list version help whatchanged name-rev merge-base for-each-ref show-ref show-branch count-objects " +
    "check-ignore check-attr check-ref-format var cherry range-diff diff-tree diff-files diff-index " +
    "verify-commit verify-tag fsck"
  ).split(" "),
);

register("git", (call) => {
  const { args, findings } = call;
  let index = 0;
  while (index < args.length) {
    const text = (args[index] as Word).text;
    if (text === "-c" || text === "--config-env" || text.startsWith("--config-env=")) {
      findings.flag("write", "git -c sets configuration that can run programs (core.pager, core.fsmonitor …)");
    }
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
  const write = (): void => findings.flag("write", `git ${subcommand} modifies the repository`);
  const destroy = (reason: string): void => findings.flag("destructive", `git ${reason}`);

  if (GIT_READ.has(subcommand)) {
    for (const target of optionValues(rest, "", "", ["--output"])) {
      classifyWriteTarget(findings, target.text, target.dynamic, `git ${subcommand} --output`);
    }
    return;
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
      write();
      return;
    case "reset":
      if (has("--hard")) destroy("reset --hard discards uncommitted changes");
      write();
      return;
    case "clean":
      if (has("--dry-run") || hasFlag(rest, "n")) return;
      if (has("--force") || hasFlag(rest, "f")) destroy("clean -f deletes untracked files");
      write();
      return;
    case "checkout":
      if (has("--force") || hasFlag(rest, "f")) destroy("checkout -f discards uncommitted changes");
      if (texts.includes("--") || texts.includes(".")) destroy("checkout -- <paths> discards uncommitted changes");
      write();
      return;
    case "switch":
      if (has("--discard-changes", "--force") || hasFlag(rest, "f"))
        destroy("switch --discard-changes discards uncommitted changes");
      write();
      return;
    case "restore": {
      // Only `--staged` alone leaves the working tree alone; anything else overwrites edits.
      const stagedOnly = (has("--staged") || hasFlag(rest, "S")) && !has("--worktree") && !hasFlag(rest, "W");
      if (!stagedOnly) destroy("restore discards uncommitted changes in the working tree");
      write();
      return;
    }
    case "rm":
      if (has("--force") || hasFlag(rest, "f")) destroy("rm -f deletes files with uncommitted changes");
      write();
      return;
    case "branch": {
      const deleting = has("--delete") || hasFlag(rest, "d");
      if (hasFlag(rest, "D") || (deleting && (has("--force") || hasFlag(rest, "f")))) {
        destroy("branch -D deletes a branch even if it is not merged");
      }
      const changing = [
        "--delete",
        "--move",
        "--copy",
        "--force",
        "--set-upstream-to",
        "--unset-upstream",
        "--edit-description",
        "--track",
        "--no-track",
      ];
      const listing = [
        "--list",
        "--all",
        "--remotes",
        "--contains",
        "--no-contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "--show-current",
      ];
      if (has(...changing) || hasFlag(rest, "dDmMcCfu")) write();
      else if (positional.length > 0 && !has(...listing) && !hasFlag(rest, "lar")) {
        findings.flag("write", "git branch NAME creates a branch");
      }
      return;
    }
    case "tag":
      if (positional.length === 0 || has("--list") || hasFlag(rest, "ln")) {
        if (!hasFlag(rest, "dfasmu")) return;
      }
      write();
      return;
    case "stash":
      if (positional[0] === "list" || positional[0] === "show") return;
      if (positional[0] === "drop" || positional[0] === "clear")
        destroy(`stash ${positional[0]} discards stashed changes`);
      write();
      return;
    case "remote":
      if (positional.length === 0 || positional[0] === "show" || positional[0] === "get-url") return;
      write();
      return;
    case "config":
      if (has("--get", "--get-all", "--get-regexp", "--list", "--get-urlmatch") || hasFlag(rest, "l")) return;
      if (
        positional.length === 1 &&
        !has("--unset", "--unset-all", "--add", "--replace-all", "--edit", "--rename-section", "--remove-section")
      )
        return;
      write();
      return;
    case "worktree":
    case "notes":
    case "submodule":
      if (positional[0] === "list" || positional[0] === "show" || positional[0] === "status") return;
      write();
      return;
    case "reflog":
      if (positional[0] === "expire" || positional[0] === "delete")
        destroy(`reflog ${positional[0]} deletes history needed for recovery`);
      else if (positional.length === 0 || positional[0] === "show" || positional[0] === "exists") return;
      write();
      return;
    case "filter-branch":
    case "filter-repo":
      destroy(`${subcommand} rewrites the whole history`);
      return;
    case "update-ref":
      if (hasFlag(rest, "d")) destroy("update-ref -d deletes a ref");
      write();
      return;
    case "prune":
      destroy("prune deletes unreachable objects");
      return;
    case "gc":
      if (texts.some((text) => text.startsWith("--prune"))) destroy("gc --prune deletes unreachable objects");
      write();
      return;
    default:
      write();
  }
});

// --- Network ------------------------------------------------------------------------------

register("curl", (call) => {
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

register("wget", (call) => {
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

register("ssh", (call) => {
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

register(`${[...SHELLS].join(" ")} source .`, (call) => {
  const { args, findings, name } = call;
  if (flagNetworkCode(call, "shell code")) return;
  if (name === "source" || name === ".") {
    findings.flag("write", `${name} runs ${args[0]?.text ?? "a script"} in the current shell, which is not analyzed`);
    return;
  }
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
    nested(call, source.heredoc.body);
  } else if (source?.operator === "<<<" && source.target !== undefined) {
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

register([...INTERPRETERS.keys()].join(" "), (call) => {
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

register("eval", (call) => {
  if (flagNetworkCode(call, "code")) return;
  if (call.args.some((word) => word.dynamic)) {
    call.findings.flag("destructive", "eval runs text computed at run time, which cannot be analyzed");
    return;
  }
  call.findings.flag("write", "eval runs its arguments as shell code");
  nested(call, call.args.map((word) => word.text).join(" "));
});

register("su", (call) => {
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
});

register("trap", (call) => {
  const action = call.args[0];
  if (action === undefined || call.args.length < 2 || action.text.startsWith("-")) return;
  if (action.dynamic) call.findings.flag("write", "trap installs a handler computed at run time");
  else nested(call, action.text);
});

register("watch", (call) => {
  const operand = skipOptions(call.args, 0, "nq", ["--interval"]);
  const command = call.args.slice(operand);
  if (command.length > 0) nested(call, command.map((word) => word.text).join(" "));
});

// --- Variables and the shell's own state ---------------------------------------------------

register("export declare typeset local readonly", (call) => {
  for (const word of call.args) flagAssignment(word, call.findings);
});

register("alias", (call) => {
  if (call.args.some((word) => word.text.includes("="))) {
    call.findings.flag("write", "alias redefines what a command name runs");
  }
});

// --- Processes and the system ------------------------------------------------------------

register("kill", (call) => {
  const { args, findings } = call;
  // Exact match: `-KILL` is a signal, not a cluster containing -L.
  if (["-l", "-L", "--list", "--table"].includes(args[0]?.text ?? "")) return;
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
  if (args.slice(index).some((word) => word.text === "-1"))
    findings.flag("destructive", "kill -1 signals every process");
  findings.flag("write", "kill sends a signal to processes");
});

register("systemctl", (call) => {
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
  const reads =
    "status show cat list-units list-unit-files list-timers list-sockets list-dependencies is-active is-enabled is-failed is-system-running get-default help";
  const destroys = "poweroff reboot halt kexec suspend hibernate hybrid-sleep emergency rescue isolate";
  if (subcommand === undefined || reads.split(" ").includes(subcommand)) return;
  if (destroys.split(" ").includes(subcommand))
    call.findings.flag("destructive", `systemctl ${subcommand} stops or restarts the machine`);
  else call.findings.flag("write", `systemctl ${subcommand} changes system services`);
});

register("init telinit", (call) => {
  const level = call.args[0]?.text;
  if (level === "0" || level === "6")
    call.findings.flag("destructive", `${call.name} ${level} stops or restarts the machine`);
  else call.findings.flag("write", `${call.name} changes the run level`);
});

register("crontab", (call) => {
  if (hasFlag(call.args, "r")) call.findings.flag("destructive", "crontab -r removes every cron job");
  else if (!hasFlag(call.args, "l")) call.findings.flag("write", "crontab replaces scheduled jobs");
});

// --- Package managers --------------------------------------------------------------------

const PACKAGE_READS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    npm: "ls list ll la view info show v outdated search help root prefix bin whoami explain why fund audit",
    pnpm: "ls list outdated why view info root help",
    yarn: "list info why outdated help",
    pip: "list show freeze check search help index inspect",
    pipx: "list",
    cargo: "tree metadata search help version verify-project locate-project",
    gem: "list search info help contents environment",
    brew: "list ls info search outdated doctor config deps leaves uses help desc",
    apt: "list show search policy depends rdepends",
    "apt-cache": "show search policy depends rdepends showpkg madison pkgnames stats dump",
    "apt-get": "",
    dnf: "list info search provides repolist",
    yum: "list info search provides repolist",
    go: "version env list doc help",
    poetry: "show check",
    uv: "tree",
    composer: "show info outdated search why",
    conda: "list info search",
    bundle: "list info outdated",
  }).map(([manager, reads]) => [manager, new Set(reads.split(" "))]),
);

register([...PACKAGE_READS.keys()].join(" "), (call) => {
  const subcommand = call.args.find((word) => !word.text.startsWith("-"))?.text;
  const first = call.args[0]?.text ?? "";
  if (["--version", "-v", "-V", "--help", "-h", "version"].includes(first)) return;
  if (subcommand !== undefined && PACKAGE_READS.get(call.name)?.has(subcommand) === true) {
    if (call.name === "npm" && call.args.some((word) => word.text === "fix")) {
      call.findings.flag("write", "npm audit fix modifies packages");
    }
    return;
  }
  call.findings.flag(
    "write",
    `${`${call.name} ${subcommand ?? ""}`.trimEnd()} modifies packages or runs project scripts`,
  );
});
