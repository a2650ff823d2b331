// Reads a shell command line into tokens (words, operators, redirections, groups) for the
// command classifier: quoting, substitutions, heredocs and arithmetic, in one linear pass of
// bounded depth. It never runs or expands anything; expansions are kept verbatim and mark a
// word dynamic. Constructs that make bash evaluate code hidden in a variable's value (arithmetic
// over variables, `${x@P}`, `${!x}`, array subscripts) are reported as problems, never parsed away.

/** Nesting of subshells, substitutions and `sh -c` deeper than this is refused. */
export const MAX_NESTING_DEPTH = 8;
export const UNTERMINATED_QUOTE = "unterminated quote: cannot be parsed reliably";

/** Thrown past MAX_NESTING_DEPTH; the classifier turns it into a destructive verdict. */
export class NestingTooDeepError extends Error {}

/** Throws NestingTooDeepError past MAX_NESTING_DEPTH. */
export function checkDepth(depth: number): void {
  if (depth > MAX_NESTING_DEPTH) throw new NestingTooDeepError();
}

/** Tokens of `text` and the reasons it cannot be read reliably (each makes the line at least write). */
export function parseShell(text: string, depth: number): { tokens: Token[]; problems: Set<string> } {
  checkDepth(depth);
  const state: ParseState = { problems: new Set() };
  const tokens = new Scanner(text, state).parseScript(depth, false);
  return { tokens, problems: state.problems };
}

/** One shell word after quote removal; expansions are kept verbatim and mark it dynamic. */
export interface Word {
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

/** The control operators that end a command. */
export type OperatorText = "|" | "|&" | "&&" | "||" | ";" | "&" | ";;" | ")";

/** A control operator between commands. */
export interface Operator {
  readonly kind: "operator";
  readonly operator: OperatorText;
}

/** A heredoc body and the command substitutions the shell would expand in it. */
export interface Heredoc {
  readonly body: string;
  readonly substitutions: readonly Script[];
}

/** A redirection: operator, file descriptor, target word and, for `<<`, its heredoc. */
export interface Redirect {
  readonly kind: "redirect";
  readonly operator: string;
  readonly fd: string;
  readonly target: Word | undefined;
  // Filled in when the scanner reaches the end of the line the heredoc starts on.
  heredoc: Heredoc | undefined;
}

/** A subshell `( … )`: its tokens. */
export interface Group {
  readonly kind: "group";
  readonly tokens: Script;
}

/** One token of a command line. */
export type Token = Word | Operator | Redirect | Group;
/** The tokens of a command line or of a nested script (substitution, subshell). */
export type Script = readonly Token[];

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
    } else if (next === "[") {
      // `$[…]`, bash's old arithmetic expansion: evaluated like `$((…))`, never known to be safe.
      this.state.problems.add(ARITHMETIC_OVER_VARIABLES);
      builder.dynamic = true;
      builder.text += "$";
      this.position++;
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
    const problem = bracedExpansionProblem(input, this.position);
    if (problem !== undefined) this.state.problems.add(problem);
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
          // bash evaluates a variable's value as arithmetic again, and an array subscript in
          // it (`a[$(cmd)]`) runs the command: only arithmetic over literals is known to be safe.
          const expression = input.slice(start, this.position - 2).replace(/\$[#?$!]/g, "");
          if (/[A-Za-z_$`]/.test(expression)) this.state.problems.add(ARITHMETIC_OVER_VARIABLES);
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

const ARITHMETIC_OVER_VARIABLES =
  "arithmetic over variables or substitutions: bash evaluates the values again, and an array subscript in them can run commands";
const BRACED_NAME = /#?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/y;
const PLAIN_SUBSCRIPT = /\[(?:[0-9]{1,18}|@|\*)\]/y;
const LITERAL_OFFSET = /:[0-9 :-]*\}/y;
// Operators whose word is only expanded or matched as a pattern: no assignment, no arithmetic.
const PLAIN_OPERATORS = [
  ":-",
  ":+",
  ":?",
  "-",
  "+",
  "?",
  "##",
  "#",
  "%%",
  "%",
  "//",
  "/#",
  "/%",
  "/",
  "^^",
  "^",
  ",,",
  ",",
];

/**
 * Why the `${…}` starting at `position` (just after `${`) may evaluate or assign, or undefined
 * for the plain forms: `${name}`, `${#name}`, `${name[N|@|*]}`, the default/alternative/error
 * forms, pattern removal and replacement, case changes, and offsets made of literal numbers.
 * Refused: `${!x}` indirection, `${x@P}` transformations (prompt expansion runs `$(…)`),
 * `${x:=v}` assignment, computed subscripts and offsets (arithmetic over a variable's value).
 * Reads a bounded prefix, so the scan stays linear.
 */
function bracedExpansionProblem(input: string, position: number): string | undefined {
  BRACED_NAME.lastIndex = position;
  const name = BRACED_NAME.exec(input);
  if (name === null) return "parameter expansion ${…} of a form that is not known to be safe";
  let at = position + name[0].length;
  if (input.charAt(at) === "[") {
    PLAIN_SUBSCRIPT.lastIndex = at;
    const subscript = PLAIN_SUBSCRIPT.exec(input);
    if (subscript === null) return "array subscript in ${…} is evaluated as arithmetic, which can run commands";
    at += subscript[0].length;
  }
  const next = input.charAt(at);
  if (next === "}") return undefined;
  if (name[0].startsWith("#") && name[0].length > 1) return "parameter expansion ${#…} of an unusual form";
  if (next === ":" && !PLAIN_OPERATORS.some((operator) => input.startsWith(operator, at))) {
    LITERAL_OFFSET.lastIndex = at;
    if (input.charAt(at + 1) === "=") return "${name:=value} assigns a variable";
    return LITERAL_OFFSET.test(input)
      ? undefined
      : "substring offset in ${…} is evaluated as arithmetic, which can run commands";
  }
  if (PLAIN_OPERATORS.some((operator) => input.startsWith(operator, at))) return undefined;
  if (next === "=") return "${name=value} assigns a variable";
  if (next === "@") return "${name@…} transforms the value (@P expands prompts, which can run commands)";
  return "parameter expansion ${…} of a form that is not known to be safe";
}

function operator(text: OperatorText): Operator {
  return { kind: "operator", operator: text };
}
