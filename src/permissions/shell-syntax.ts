// Parses a command line for the classifier with mvdan/sh (the parser behind shfmt) in its POSIX
// mode: the dialect of dash, the /bin/sh that shell.run pins. The tree is copied into the small
// typed shapes below (statements, commands, words after quote removal, redirections), so the
// classifier walks exactly what the shell will run. Nothing is run or expanded.
//
// mvdan-sh is its author's GopherJS build (synchronous, no WASM to load). Its public wrappers
// cost ~50 µs per node read, so the raw Go values under `__internal_object__` are read instead:
// plain properties, slices as {$array, $offset, $length}, nil pointers as `constructor.nil`.
// The package is pinned exactly and the operator numbers are learnt from probes at load.

import { createRequire } from "node:module";

/** Nesting of subshells, substitutions, bodies and `sh -c` deeper than this is refused. */
export const MAX_NESTING_DEPTH = 8;

/** Thrown past MAX_NESTING_DEPTH (or when the parser's own recursion overflows). */
export class NestingTooDeepError extends Error {}

/** Throws NestingTooDeepError past MAX_NESTING_DEPTH. */
export function checkDepth(depth: number): void {
  if (depth > MAX_NESTING_DEPTH) throw new NestingTooDeepError();
}

/** One shell word after quote removal; expansions are kept verbatim and mark it dynamic. */
export interface Word {
  readonly kind: "word";
  readonly text: string;
  readonly quoted: boolean;
  /** Contains a parameter expansion, an arithmetic expansion or a substitution. */
  readonly dynamic: boolean;
  /**
   * Contains one outside double quotes: the shell splits its value into several words at run
   * time (`$x` holding `1 --output=f` is two arguments), so one word here may be many there.
   */
  readonly splits: boolean;
  /** Contains an unquoted `*`, `?` or `[` (dash has no brace expansion). */
  readonly glob: boolean;
  /** Length of `text` before the first quoted character, to recognise `NAME=value`. */
  readonly unquotedPrefixLength: number;
  /** The command substitutions in the word, each a script of its own. */
  readonly substitutions: readonly Script[];
  /** Why part of the word is not proven harmless (arithmetic with variables, `${x=…}` …). */
  readonly problems: readonly string[];
}

/** A redirection: operator, file descriptor, target word and, for `<<`, its here-document. */
export interface Redirect {
  readonly kind: "redirect";
  readonly operator: string;
  readonly fd: string;
  readonly target: Word | undefined;
  readonly heredoc: Word | undefined;
}

/** A command with its redirections; `negated` for `!`, `background` for `&`. */
export interface Statement {
  readonly command: Command;
  readonly redirects: readonly Redirect[];
  readonly background: boolean;
}

/** The commands of POSIX sh, as the classifier needs them. */
export type Command =
  | { readonly kind: "simple"; readonly words: readonly Word[] }
  | { readonly kind: "pipeline"; readonly stages: readonly Statement[] }
  | { readonly kind: "list"; readonly statements: readonly Statement[] }
  | { readonly kind: "group"; readonly body: Script }
  /** `if`, `while`, `until`, `for`, `case`: the words of its header and its bodies. */
  | {
      readonly kind: "compound";
      readonly keyword: string;
      readonly header: readonly Word[];
      readonly loopVariable: string | undefined;
      readonly bodies: readonly Script[];
    }
  | { readonly kind: "function"; readonly name: string; readonly body: Statement };

/** A list of statements: a whole line, a body, a substitution. */
export type Script = readonly Statement[];

/** The tree of `text`, or why it cannot be read as POSIX sh (then the line is at least write). */
export function parseShell(text: string): { script: Script; problem: string | undefined } {
  const parser = loadParser();
  let file: GoValue;
  try {
    file = parser.parse(text);
  } catch (error) {
    if (error instanceof RangeError) throw new NestingTooDeepError();
    return { script: [], problem: `cannot be parsed as POSIX sh (${parseMessage(error)})` };
  }
  return { script: new Converter(text, parser.tokens).statements(file["Stmts"], 0), problem: undefined };
}

/** Loads the parser now (~0.3 s once per process) rather than on the first classification. */
export function loadShellParser(): void {
  loadParser();
}

// ---------------------------------------------------------------------------------------
// The raw GopherJS values

// biome-ignore lint/suspicious/noExplicitAny: raw GopherJS values have no declared types.
type GoValue = any;

interface Tokens {
  readonly redirect: ReadonlyMap<number, string>;
  readonly binary: ReadonlyMap<number, string>;
  readonly assigningExpansion: ReadonlySet<number>;
}

interface LoadedParser {
  parse(text: string): GoValue;
  readonly tokens: Tokens;
}

let loaded: LoadedParser | undefined;

function loadParser(): LoadedParser {
  if (loaded !== undefined) return loaded;
  // GopherJS sets Error.stackTraceLimit to Infinity and a global `require` when it loads: undone.
  const stackTraceLimit = Error.stackTraceLimit;
  const hadRequire = Object.hasOwn(globalThis, "require");
  const syntax = createRequire(import.meta.url)("mvdan-sh").syntax;
  Error.stackTraceLimit = stackTraceLimit;
  if (!hadRequire) Reflect.deleteProperty(globalThis, "require");
  const parser = syntax.NewParser(syntax.Variant(syntax.LangPOSIX));
  const parse = (text: string): GoValue => parser.Parse(text, "").__internal_object__;
  const firstStatement = (text: string): GoValue => at(parse(text)["Stmts"], 0);
  const redirect = new Map<number, string>();
  for (const op of [">", ">>", "<", "<<", "<<-", "<&", ">&", "<>", ">|"]) {
    const heredoc = op.startsWith("<<") ? "\nb\n" : "";
    redirect.set(at(firstStatement(`a ${op} b${heredoc}`)["Redirs"], 0)["Op"], op);
  }
  const binary = new Map<number, string>();
  for (const op of ["|", "&&", "||"]) binary.set(firstStatement(`a ${op} b`)["Cmd"]["Op"], op);
  const assigningExpansion = new Set<number>();
  for (const op of ["=", ":="]) {
    assigningExpansion.add(at(at(firstStatement(`a \${b${op}c}`)["Cmd"]["Args"], 1)["Parts"], 0)["Exp"]["Op"]);
  }
  loaded = { parse, tokens: { redirect, binary, assigningExpansion } };
  return loaded;
}

function isNil(value: GoValue): boolean {
  return value === null || value === undefined || value.constructor?.nil === value;
}

function at(slice: GoValue, index: number): GoValue {
  return slice.$array[slice.$offset + index];
}

function each(slice: GoValue): GoValue[] {
  const items: GoValue[] = [];
  if (isNil(slice) || slice.$array === undefined) return items;
  for (let index = 0; index < slice.$length; index++) items.push(slice.$array[slice.$offset + index]);
  return items;
}

function typeOf(node: GoValue): string {
  return isNil(node) ? "" : String(node.constructor?.string ?? "").replace("*syntax.", "");
}

function parseMessage(error: unknown): string {
  const value = error as { Error?: () => string; message?: string };
  const text = typeof value?.Error === "function" ? value.Error() : (value?.message ?? String(error));
  return text.slice(0, 200);
}

/** Copies the raw tree into the typed shapes, with the source text for expansions' display. */
class Converter {
  constructor(
    private readonly source: string,
    private readonly tokens: Tokens,
  ) {}

  statements(list: GoValue, depth: number): Statement[] {
    checkDepth(depth);
    return each(list).map((statement) => this.statement(statement, depth));
  }

  statement(node: GoValue, depth: number): Statement {
    const redirects = each(node["Redirs"]).map((redirect) => this.redirect(redirect, depth));
    return { command: this.command(node["Cmd"], depth), redirects, background: node["Background"] === true };
  }

  command(node: GoValue, depth: number): Command {
    const type = typeOf(node);
    switch (type) {
      case "": // a statement of redirections only, e.g. `> file`
        return { kind: "simple", words: [] };
      case "CallExpr": {
        const assignments = each(node["Assigns"]).map((assign) => this.assignment(assign, depth));
        return { kind: "simple", words: [...assignments, ...each(node["Args"]).map((word) => this.word(word, depth))] };
      }
      case "BinaryCmd": {
        const op = this.tokens.binary.get(node["Op"]);
        const sides = [this.statement(node["X"], depth), this.statement(node["Y"], depth)];
        if (op === "|") {
          const stages = sides.flatMap((side) =>
            side.command.kind === "pipeline" && side.redirects.length === 0 ? side.command.stages : [side],
          );
          return { kind: "pipeline", stages };
        }
        return { kind: "list", statements: sides };
      }
      case "Subshell":
      case "Block":
        return { kind: "group", body: this.statements(node["Stmts"], depth + 1) };
      case "IfClause": {
        const bodies: Script[] = [];
        let clause = node;
        while (!isNil(clause)) {
          bodies.push(this.statements(clause["Cond"], depth + 1), this.statements(clause["Then"], depth + 1));
          clause = clause["Else"];
        }
        return { kind: "compound", keyword: "if", header: [], loopVariable: undefined, bodies };
      }
      case "WhileClause":
        return {
          kind: "compound",
          keyword: node["Until"] === true ? "until" : "while",
          header: [],
          loopVariable: undefined,
          bodies: [this.statements(node["Cond"], depth + 1), this.statements(node["Do"], depth + 1)],
        };
      case "ForClause": {
        const loop = node["Loop"];
        if (typeOf(loop) !== "WordIter") return this.unsupported(node, depth);
        return {
          kind: "compound",
          keyword: "for",
          header: each(loop["Items"]).map((word) => this.word(word, depth)),
          loopVariable: String(loop["Name"]["Value"]),
          bodies: [this.statements(node["Do"], depth + 1)],
        };
      }
      case "CaseClause": {
        const items = each(node["Items"]);
        return {
          kind: "compound",
          keyword: "case",
          header: [
            this.word(node["Word"], depth),
            ...items.flatMap((item) => each(item["Patterns"]).map((word) => this.word(word, depth))),
          ],
          loopVariable: undefined,
          bodies: items.map((item) => this.statements(item["Stmts"], depth + 1)),
        };
      }
      case "FuncDecl":
        return { kind: "function", name: String(node["Name"]["Value"]), body: this.statement(node["Body"], depth + 1) };
      default:
        return this.unsupported(node, depth);
    }
  }

  /** A construct POSIX mode should never produce: a word that makes the command unknown. */
  unsupported(node: GoValue, _depth: number): Command {
    const word: Word = {
      kind: "word",
      text: `${typeOf(node) || "unknown"}`,
      quoted: false,
      dynamic: true,
      splits: true,
      glob: false,
      unquotedPrefixLength: 0,
      substitutions: [],
      problems: [`a ${typeOf(node)} construct is not analyzed`],
    };
    return { kind: "simple", words: [word] };
  }

  redirect(node: GoValue, depth: number): Redirect {
    const operator = this.tokens.redirect.get(node["Op"]) ?? "?";
    const fd = isNil(node["N"]) ? "" : String(node["N"]["Value"]);
    const heredoc = isNil(node["Hdoc"]) ? undefined : this.word(node["Hdoc"], depth);
    const target = isNil(node["Word"]) ? undefined : this.word(node["Word"], depth);
    return { kind: "redirect", operator, fd, target, heredoc };
  }

  /** `name=value` as one word, as the command rules expect it. */
  assignment(node: GoValue, depth: number): Word {
    const name = String(node["Name"]["Value"]);
    const value = isNil(node["Value"]) ? undefined : this.word(node["Value"], depth);
    const prefix = `${name}${node["Append"] === true ? "+" : ""}=`;
    return {
      kind: "word",
      text: prefix + (value?.text ?? ""),
      quoted: value?.quoted ?? false,
      dynamic: value?.dynamic ?? false,
      // An assignment's value is not split.
      splits: false,
      glob: false,
      unquotedPrefixLength: prefix.length + (value?.unquotedPrefixLength ?? 0),
      substitutions: value?.substitutions ?? [],
      problems: value?.problems ?? [],
    };
  }

  word(node: GoValue, depth: number): Word {
    const builder = new WordBuilder();
    for (const part of each(node["Parts"])) this.part(part, builder, depth, false);
    return builder.build();
  }

  part(node: GoValue, builder: WordBuilder, depth: number, inDoubleQuotes: boolean): void {
    const type = typeOf(node);
    if (type === "Lit") {
      builder.literal(String(node["Value"]), inDoubleQuotes);
    } else if (type === "SglQuoted") {
      builder.markQuoted();
      builder.text += String(node["Value"]);
    } else if (type === "DblQuoted") {
      builder.markQuoted();
      for (const inner of each(node["Parts"])) this.part(inner, builder, depth, true);
    } else if (type === "CmdSubst") {
      builder.expansion(inDoubleQuotes);
      builder.text += this.sourceOf(node);
      builder.substitutions.push(this.statements(node["Stmts"], depth + 1));
    } else if (type === "ParamExp") {
      const source = this.sourceOf(node);
      // `$!`, `$$`, `$?`, `$#` are non-negative numbers: split by any IFS, they give digits only.
      // `"$@"` is as many words as there are arguments, quoted or not (`set -- 5 sh -c …`).
      const numeric = /^\$[!$?#]$/.test(source);
      const allArguments = String(node["Param"]?.["Value"] ?? "") === "@";
      builder.expansion(numeric || (inDoubleQuotes && !allArguments));
      builder.text += source;
      this.parameter(node, builder, depth);
    } else if (type === "ArithmExp") {
      builder.expansion(inDoubleQuotes);
      builder.text += this.sourceOf(node);
      this.arithmetic(node["X"], builder, depth);
    } else {
      builder.expansion(inDoubleQuotes);
      builder.text += this.sourceOf(node);
      builder.problems.push(`a ${type || "unknown"} expansion is not analyzed`);
    }
  }

  /** `${x=…}` and `${x:=…}` assign; the words inside any expansion may hold substitutions. */
  parameter(node: GoValue, builder: WordBuilder, depth: number): void {
    const expansion = node["Exp"];
    if (isNil(expansion)) return;
    const name = String(node["Param"]?.["Value"] ?? "");
    if (this.tokens.assigningExpansion.has(expansion["Op"])) {
      builder.problems.push(`\${${name}=…} assigns ${name} while the line runs`);
    }
    if (!isNil(expansion["Word"])) {
      for (const part of each(expansion["Word"]["Parts"])) this.part(part, builder, depth + 1, true);
    }
  }

  /** Arithmetic over literal numbers only is harmless; a variable, assignment or substitution is not proven so. */
  arithmetic(node: GoValue, builder: WordBuilder, depth: number): void {
    const type = typeOf(node);
    if (type === "Word") {
      const parts = each(node["Parts"]);
      const literal = parts.length === 1 && typeOf(parts[0]) === "Lit" && /^[0-9]+$/.test(String(parts[0]["Value"]));
      if (!literal) {
        builder.problems.push(
          "arithmetic over variables or substitutions (it can assign, and its values are known only at run time)",
        );
        const inner = new WordBuilder();
        for (const part of parts) this.part(part, inner, depth + 1, true);
        for (const script of inner.substitutions) builder.substitutions.push(script);
      }
    } else if (type === "BinaryArithm") {
      this.arithmetic(node["X"], builder, depth);
      this.arithmetic(node["Y"], builder, depth);
    } else if (type === "UnaryArithm") {
      this.arithmetic(node["X"], builder, depth);
    } else if (type === "ParenArithm") {
      this.arithmetic(node["X"], builder, depth);
    } else {
      builder.problems.push(`arithmetic ${type} is not analyzed`);
    }
  }

  sourceOf(node: GoValue): string {
    try {
      return this.source.slice(node.Pos().Offset(), node.End().Offset());
    } catch {
      return "$…";
    }
  }
}

class WordBuilder {
  text = "";
  quoted = false;
  dynamic = false;
  splits = false;
  glob = false;
  unquotedPrefixLength = -1;
  readonly substitutions: Script[] = [];
  readonly problems: string[] = [];

  /** An expansion or substitution: its value is known at run time, and split into words unless double-quoted. */
  expansion(inDoubleQuotes: boolean): void {
    this.dynamic = true;
    if (!inDoubleQuotes) this.splits = true;
  }

  markQuoted(): void {
    if (!this.quoted) {
      this.quoted = true;
      this.unquotedPrefixLength = this.text.length;
    }
  }

  /**
   * A literal as the parser kept it (backslashes included), after quote removal: unquoted, a
   * backslash quotes the next character; inside double quotes only before $ ` " \ and newline.
   */
  literal(value: string, inDoubleQuotes: boolean): void {
    if (inDoubleQuotes) this.markQuoted();
    for (let index = 0; index < value.length; index++) {
      const character = value.charAt(index);
      if (character === "\\" && index + 1 < value.length) {
        const next = value.charAt(index + 1);
        if (next === "\n") {
          index++;
          continue;
        }
        if (!inDoubleQuotes || '$`"\\'.includes(next)) {
          this.markQuoted();
          this.text += next;
          index++;
          continue;
        }
      }
      if (!inDoubleQuotes && (character === "*" || character === "?")) this.glob = true;
      // `[` starts a pattern only where a `]` closes it (`[ -d x ]` and `[[` are plain words).
      if (!inDoubleQuotes && character === "[" && value.indexOf("]", index + 1) > index) this.glob = true;
      this.text += character;
    }
  }

  build(): Word {
    return {
      kind: "word",
      text: this.text,
      quoted: this.quoted,
      dynamic: this.dynamic,
      splits: this.splits,
      glob: this.glob,
      unquotedPrefixLength: this.quoted ? this.unquotedPrefixLength : this.text.length,
      substitutions: this.substitutions,
      problems: this.problems,
    };
  }
}
