// Lints a model-written program for two costly habits the type checker cannot see: tool
// calls awaited one by one in a loop that could run them together, and tool calls whose
// promise is dropped. Syntax-tree heuristics that only ever warn; they never refuse a run,
// and a program that does not parse simply gets fewer warnings.

import { createRequire } from "node:module";
import type * as TS from "typescript";
import type { Diagnostic } from "../contract.js";
import { parseWrappedProgram } from "./parse-wrapped-program.js";
import type { ProgramForm } from "./program-wrapper.js";
import { locateInSource } from "./type-check-program.js";

// Loaded with require, not import: see type-check-program.ts (saves a 300 ms export scan).
const ts = createRequire(import.meta.url)("typescript") as typeof TS;

/** Rule names, used as the `code` of the warnings. */
export type LintRule = "serial-await-in-loop" | "floating-tool-call";

/**
 * Lints `source` (the body of an async function, as the model wrote it) and returns
 * warnings sorted by position, 1-based in the model's source, `code` a `LintRule`.
 *
 * - `serial-await-in-loop`: a tool call awaited directly in a loop body. Silent when the
 *   iterations look dependent: the call's arguments, or the loop's condition or iterated
 *   expression, use a variable the loop assigns (or pushes to) from an awaited result, as a
 *   cursor does; or the loop can exit early (`break`, `return`), as a search does; or the
 *   loop provably runs at most once (`for (const x of [a])`, `for (let i = 0; i < 1; i++)`,
 *   `do { } while (false)`); or it awaits `sleep(...)`, so it is paced on purpose.
 * - `floating-tool-call`: a tool call whose promise is dropped: an expression statement, the
 *   left of a comma, or a callback whose promise `forEach` ignores. Awaited, returned,
 *   stored, passed, chained (`.then`/`.catch`) or `void`-ed calls are left alone.
 *
 * Never throws: a source too deeply nested to parse yields no warnings.
 */
export function lintProgram(source: string, form: ProgramForm = "body"): Diagnostic[] {
  let file: TS.SourceFile;
  const warnings: { position: number; code: LintRule; message: string }[] = [];
  try {
    file = parseWrappedProgram(source, form);
    const visit = (node: TS.Node): void => {
      if (ts.isAwaitExpression(node)) checkSerialAwait(node, warnings);
      if (ts.isCallExpression(node)) {
        checkFloatingCall(node, warnings);
        checkForEachCallback(node, warnings);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  } catch {
    // The parser and walker recurse per nesting level; absurd nesting overflows the stack.
    return [];
  }
  return warnings
    .sort((a, b) => a.position - b.position)
    .map(({ position, code, message }) => ({
      ...locateInSource(file, position, source.length),
      code,
      message,
      severity: "warning",
    }));
}

type Warnings = { position: number; code: LintRule; message: string }[];

/** `tools.ns.name` when `node` calls a tool through the `tools` object, else undefined. */
function toolCallName(node: TS.Node): string | undefined {
  if (!ts.isCallExpression(node)) return undefined;
  const path: string[] = [];
  let callee: TS.Expression = skipParentheses(node.expression);
  for (;;) {
    if (ts.isPropertyAccessExpression(callee)) {
      path.unshift(callee.name.text);
      callee = skipParentheses(callee.expression);
    } else if (ts.isElementAccessExpression(callee) && ts.isStringLiteralLike(callee.argumentExpression)) {
      path.unshift(callee.argumentExpression.text);
      callee = skipParentheses(callee.expression);
    } else break;
  }
  if (!ts.isIdentifier(callee) || callee.text !== "tools" || path.length === 0) return undefined;
  // `tools.$budget()` asks the run what is left; checking it in a loop is the point of it.
  if (path[0] === "$budget") return undefined;
  // `tools.x.then(...)` and friends are promise plumbing, not a call of a tool.
  const last = path[path.length - 1];
  if (path.length > 1 && (last === "then" || last === "catch" || last === "finally")) return undefined;
  return ["tools", ...path].join(".");
}

function skipParentheses(expression: TS.Expression): TS.Expression {
  let current = expression;
  while (ts.isParenthesizedExpression(current)) current = current.expression;
  return current;
}

// ---- serial-await-in-loop ----

function checkSerialAwait(node: TS.AwaitExpression, warnings: Warnings): void {
  const call = skipParentheses(node.expression);
  const name = toolCallName(call);
  if (name === undefined || !ts.isCallExpression(call)) return;
  const loop = enclosingLoop(node);
  if (loop === undefined || canExitEarly(loop) || runsAtMostOnce(loop) || awaitsSleep(loop)) return;
  const carried = carriedNames(loop);
  if (carried.size > 0) {
    const used = new Set(call.arguments.flatMap((argument) => referencedNames(argument)));
    for (const header of loopHeader(loop)) for (const used_ of referencedNames(header)) used.add(used_);
    for (const usedName of used) if (carried.has(usedName)) return;
  }
  warnings.push({
    position: node.getStart(),
    code: "serial-await-in-loop",
    message:
      `${name}(...) is awaited inside a loop, so the calls run one after another. If the iterations ` +
      `do not depend on each other, start them together: \`await Promise.all(items.map((item) => ${name}(...)))\`; ` +
      `the host already bounds how many run at once.`,
  });
}

/** The loop whose body runs `node` once per iteration, stopping at function boundaries. */
function enclosingLoop(node: TS.Node): TS.IterationStatement | undefined {
  let child: TS.Node = node;
  for (let parent = node.parent; parent !== undefined; child = parent, parent = parent.parent) {
    if (ts.isFunctionLike(parent)) return undefined;
    if (!ts.isIterationStatement(parent, false)) continue;
    if (child === parent.statement) return parent;
    // An await in a condition or incrementor is the loop's own step (a queue, a cursor):
    // serial by nature. One in an initializer or iterated expression runs once per loop.
    if (
      (ts.isForStatement(parent) && (child === parent.condition || child === parent.incrementor)) ||
      ts.isWhileStatement(parent) ||
      ts.isDoStatement(parent)
    ) {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Whether the loop provably runs its body at most once: over an array literal (or a `const`
 * bound to one that nothing mutates) of at most one element, an object literal of at most one
 * key, a counting `for` whose literal bounds allow one step, or a `while (false)`/`do ... while (false)`.
 */
function runsAtMostOnce(loop: TS.IterationStatement): boolean {
  if (ts.isForOfStatement(loop)) {
    const elements = literalArrayOf(loop.expression);
    return elements !== undefined && elements.length <= 1 && !elements.some(ts.isSpreadElement);
  }
  if (ts.isForInStatement(loop)) {
    const iterated = skipParentheses(loop.expression);
    return (
      ts.isObjectLiteralExpression(iterated) &&
      iterated.properties.length <= 1 &&
      !iterated.properties.some(ts.isSpreadAssignment)
    );
  }
  if (ts.isWhileStatement(loop) || ts.isDoStatement(loop)) {
    return skipParentheses(loop.expression).kind === ts.SyntaxKind.FalseKeyword;
  }
  if (ts.isForStatement(loop)) return countingSteps(loop) <= 1;
  return false;
}

/** The elements of `[...]`, directly or through a `const` bound to one and never mutated; else undefined. */
function literalArrayOf(expression: TS.Expression): readonly TS.Expression[] | undefined {
  const iterated = skipParentheses(expression);
  if (ts.isArrayLiteralExpression(iterated)) return iterated.elements;
  if (!ts.isIdentifier(iterated)) return undefined;
  const declaration = constDeclarationOf(iterated);
  const initializer = declaration?.initializer === undefined ? undefined : skipParentheses(declaration.initializer);
  if (initializer === undefined || !ts.isArrayLiteralExpression(initializer)) return undefined;
  return isMutatedAnywhere(iterated.text, iterated.getSourceFile()) ? undefined : initializer.elements;
}

/** The `const name = ...` declaration `identifier` refers to, searched in enclosing blocks. */
function constDeclarationOf(identifier: TS.Identifier): TS.VariableDeclaration | undefined {
  for (let scope: TS.Node | undefined = identifier.parent; scope !== undefined; scope = scope.parent) {
    if (!ts.isBlock(scope) && !ts.isSourceFile(scope)) continue;
    for (const statement of scope.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      if ((statement.declarationList.flags & ts.NodeFlags.Const) === 0) continue;
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.name.text === identifier.text) return declaration;
      }
    }
  }
  return undefined;
}

/** Whether `name.push(...)` (or another mutating method), or `name[i] = ...`, appears anywhere in `file`. */
function isMutatedAnywhere(name: string, file: TS.SourceFile): boolean {
  let mutated = false;
  const visit = (node: TS.Node): void => {
    if (mutated) return;
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const receiver = skipParentheses(node.expression);
      if (ts.isIdentifier(receiver) && receiver.text === name) {
        const isMutatingCall =
          ts.isPropertyAccessExpression(node) &&
          ARRAY_MUTATORS.has(node.name.text) &&
          ts.isCallExpression(node.parent) &&
          node.parent.expression === node;
        const isAssigned =
          ts.isBinaryExpression(node.parent) &&
          node.parent.left === node &&
          isAssignmentOperator(node.parent.operatorToken.kind);
        if (isMutatingCall || isAssigned) mutated = true;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return mutated;
}

const ARRAY_MUTATORS = new Set(["push", "unshift", "splice", "fill", "copyWithin"]);

/**
 * Iterations of `for (let i = A; i < B; i++)` (or `<=`, `++i`, `i += 1`) with numeric literal
 * bounds and a counter the body leaves alone; Infinity when the loop has any other shape.
 */
function countingSteps(loop: TS.ForStatement): number {
  const { initializer, condition, incrementor } = loop;
  if (initializer === undefined || !ts.isVariableDeclarationList(initializer)) return Number.POSITIVE_INFINITY;
  const [declaration] = initializer.declarations;
  if (initializer.declarations.length !== 1 || declaration === undefined || !ts.isIdentifier(declaration.name)) {
    return Number.POSITIVE_INFINITY;
  }
  const counter = declaration.name.text;
  const start = numericLiteralValue(declaration.initializer);
  if (start === undefined || condition === undefined || incrementor === undefined) return Number.POSITIVE_INFINITY;
  const test = skipParentheses(condition);
  if (!ts.isBinaryExpression(test) || !isIdentifierNamed(test.left, counter)) return Number.POSITIVE_INFINITY;
  const end = numericLiteralValue(test.right);
  const operator = test.operatorToken.kind;
  if (end === undefined) return Number.POSITIVE_INFINITY;
  if (!isUnitIncrement(incrementor, counter) || assignsTo(loop.statement, counter)) {
    return Number.POSITIVE_INFINITY;
  }
  if (operator === ts.SyntaxKind.LessThanToken) return Math.max(0, Math.ceil(end - start));
  if (operator === ts.SyntaxKind.LessThanEqualsToken) return Math.max(0, Math.floor(end - start) + 1);
  return Number.POSITIVE_INFINITY;
}

function numericLiteralValue(node: TS.Expression | undefined): number | undefined {
  if (node === undefined) return undefined;
  const inner = skipParentheses(node);
  if (ts.isNumericLiteral(inner)) return Number(inner.text);
  if (
    ts.isPrefixUnaryExpression(inner) &&
    inner.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(inner.operand)
  ) {
    return -Number(inner.operand.text);
  }
  return undefined;
}

function isIdentifierNamed(node: TS.Expression, name: string): boolean {
  const inner = skipParentheses(node);
  return ts.isIdentifier(inner) && inner.text === name;
}

/** Whether `node` assigns to, increments or decrements the variable `name`. */
function assignsTo(node: TS.Node, name: string): boolean {
  if (ts.isBinaryExpression(node) && isAssignmentOperator(node.operatorToken.kind)) {
    if (assignedNames(node.left).includes(name)) return true;
  }
  if (
    (ts.isPostfixUnaryExpression(node) || ts.isPrefixUnaryExpression(node)) &&
    isIdentifierNamed(node.operand, name)
  ) {
    const { operator } = node;
    if (operator === ts.SyntaxKind.PlusPlusToken || operator === ts.SyntaxKind.MinusMinusToken) return true;
  }
  return ts.forEachChild(node, (child) => (assignsTo(child, name) ? true : undefined)) ?? false;
}

/** `i++`, `++i` or `i += 1`. */
function isUnitIncrement(node: TS.Expression, counter: string): boolean {
  const inner = skipParentheses(node);
  if (ts.isPostfixUnaryExpression(inner) || ts.isPrefixUnaryExpression(inner)) {
    return inner.operator === ts.SyntaxKind.PlusPlusToken && isIdentifierNamed(inner.operand, counter);
  }
  return (
    ts.isBinaryExpression(inner) &&
    inner.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken &&
    isIdentifierNamed(inner.left, counter) &&
    numericLiteralValue(inner.right) === 1
  );
}

/** Whether the loop's body awaits `sleep(...)`: a paced loop (backoff, polling) is serial on purpose. */
function awaitsSleep(loop: TS.IterationStatement): boolean {
  const visit = (node: TS.Node): boolean => {
    if (ts.isFunctionLike(node)) return false;
    if (ts.isAwaitExpression(node)) {
      const awaited = skipParentheses(node.expression);
      if (ts.isCallExpression(awaited) && isIdentifierNamed(awaited.expression, "sleep")) return true;
    }
    return ts.forEachChild(node, visit) ?? false;
  };
  return visit(loop.statement);
}

/** The expressions that decide whether and over what the loop iterates. */
function loopHeader(loop: TS.IterationStatement): TS.Node[] {
  if (ts.isForStatement(loop)) return [loop.condition, loop.incrementor].filter((node) => node !== undefined);
  if (ts.isForOfStatement(loop) || ts.isForInStatement(loop)) return [loop.expression];
  if (ts.isWhileStatement(loop) || ts.isDoStatement(loop)) return [loop.expression];
  return [];
}

/** Whether the loop body can leave the loop (break targeting it, or return) before the end. */
function canExitEarly(loop: TS.IterationStatement): boolean {
  // A labeled break leaves this loop unless its label belongs to a statement inside the body:
  // `break outer` from an inner loop ends the inner one too.
  const innerLabels = new Set<string>();
  const collect = (node: TS.Node): void => {
    if (ts.isFunctionLike(node)) return;
    if (ts.isLabeledStatement(node)) innerLabels.add(node.label.text);
    ts.forEachChild(node, collect);
  };
  collect(loop.statement);
  let found = false;
  const visit = (node: TS.Node, nestedBreakTarget: boolean): void => {
    if (found || ts.isFunctionLike(node)) return;
    if (ts.isReturnStatement(node)) found = true;
    else if (ts.isBreakStatement(node)) {
      found = node.label === undefined ? !nestedBreakTarget : !innerLabels.has(node.label.text);
    }
    const nested = nestedBreakTarget || ts.isIterationStatement(node, false) || ts.isSwitchStatement(node);
    ts.forEachChild(node, (child) => visit(child, nested));
  };
  visit(loop.statement, false);
  return found;
}

/**
 * Names the loop carries from one iteration to the next with data from an awaited result:
 * targets of assignments (`cursor = page.next`, `total += r.n`) and receivers of mutating
 * calls (`queue.push(...r.children)`) whose value derives from an `await` in the loop.
 */
function carriedNames(loop: TS.IterationStatement): Set<string> {
  const tainted = new Set<string>();
  const carried = new Set<string>();
  const derivesFromAwait = (expression: TS.Node): boolean =>
    containsAwait(expression) || referencedNames(expression).some((name) => tainted.has(name));
  // Taint spreads through chains of assignments; iterate to a fixed point (small loops).
  for (let changed = true, rounds = 0; changed && rounds < 20; rounds++) {
    changed = false;
    const mark = (name: string, isCarried: boolean): void => {
      if (!tainted.has(name)) {
        tainted.add(name);
        changed = true;
      }
      if (isCarried && !carried.has(name)) {
        carried.add(name);
        changed = true;
      }
    };
    const visit = (node: TS.Node): void => {
      if (ts.isFunctionLike(node) && !ts.isArrowFunction(node)) return;
      if (ts.isVariableDeclaration(node) && node.initializer !== undefined && derivesFromAwait(node.initializer)) {
        for (const name of boundNames(node.name)) mark(name, false);
      } else if (
        ts.isBinaryExpression(node) &&
        isAssignmentOperator(node.operatorToken.kind) &&
        derivesFromAwait(node.right)
      ) {
        for (const name of assignedNames(node.left)) mark(name, true);
      } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const receiver = skipParentheses(node.expression.expression);
        if (
          ts.isIdentifier(receiver) &&
          MUTATING_METHODS.has(node.expression.name.text) &&
          node.arguments.some((argument) => derivesFromAwait(argument))
        ) {
          mark(receiver.text, true);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(loop);
  }
  return carried;
}

const MUTATING_METHODS = new Set(["push", "unshift", "splice", "add", "set"]);

function isAssignmentOperator(kind: TS.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

function containsAwait(node: TS.Node): boolean {
  if (ts.isAwaitExpression(node)) return true;
  if (ts.isFunctionLike(node)) return false;
  return ts.forEachChild(node, (child) => (containsAwait(child) ? true : undefined)) ?? false;
}

function boundNames(name: TS.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : boundNames(element.name)));
}

function assignedNames(target: TS.Expression): string[] {
  const inner = skipParentheses(target);
  if (ts.isIdentifier(inner)) return [inner.text];
  // `state.cursor = page.next` carries `state`.
  if (ts.isPropertyAccessExpression(inner) || ts.isElementAccessExpression(inner))
    return assignedNames(inner.expression);
  if (ts.isArrayLiteralExpression(inner) || ts.isObjectLiteralExpression(inner)) return referencedNames(inner);
  return [];
}

/** Identifiers read by `node`, excluding property names (`a.b`'s `b`, `{ b: 1 }`'s `b`). */
function referencedNames(node: TS.Node): string[] {
  const names: string[] = [];
  const visit = (current: TS.Node): void => {
    if (ts.isIdentifier(current)) {
      const parent = current.parent;
      const isPropertyName =
        (ts.isPropertyAccessExpression(parent) && parent.name === current) ||
        (ts.isPropertyAssignment(parent) && parent.name === current) ||
        (ts.isMethodDeclaration(parent) && parent.name === current);
      if (!isPropertyName) names.push(current.text);
      return;
    }
    ts.forEachChild(current, visit);
  };
  visit(node);
  return names;
}

// ---- floating-tool-call ----

const FLOATING_MESSAGE = (name: string): string =>
  `This ${name}(...) call's promise is never awaited; its result and errors are lost, and the ` +
  `program may end before it completes. Add \`await\`, or collect the promises and \`await Promise.all(...)\`.`;

function checkFloatingCall(call: TS.CallExpression, warnings: Warnings): void {
  const name = toolCallName(call);
  if (name === undefined) return;
  let node: TS.Node = call;
  for (;;) {
    const parent: TS.Node = node.parent;
    const passesThrough =
      ts.isParenthesizedExpression(parent) ||
      ts.isAsExpression(parent) ||
      ts.isSatisfiesExpression(parent) ||
      ts.isNonNullExpression(parent) ||
      ts.isTypeAssertionExpression(parent) ||
      (ts.isConditionalExpression(parent) && node !== parent.condition) ||
      (ts.isBinaryExpression(parent) &&
        node === parent.right &&
        [
          ts.SyntaxKind.CommaToken,
          ts.SyntaxKind.BarBarToken,
          ts.SyntaxKind.AmpersandAmpersandToken,
          ts.SyntaxKind.QuestionQuestionToken,
        ].includes(parent.operatorToken.kind));
    if (passesThrough) {
      node = parent;
      continue;
    }
    const dropped =
      ts.isExpressionStatement(parent) ||
      (ts.isBinaryExpression(parent) &&
        parent.operatorToken.kind === ts.SyntaxKind.CommaToken &&
        node === parent.left) ||
      (ts.isForStatement(parent) && (node === parent.initializer || node === parent.incrementor));
    if (dropped)
      warnings.push({ position: call.getStart(), code: "floating-tool-call", message: FLOATING_MESSAGE(name) });
    return;
  }
}

/** `items.forEach(async (item) => { await tools.x(...) })`: forEach drops every callback's promise. */
function checkForEachCallback(call: TS.CallExpression, warnings: Warnings): void {
  if (!ts.isPropertyAccessExpression(call.expression) || call.expression.name.text !== "forEach") return;
  const callback = call.arguments[0];
  if (callback === undefined || !(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback))) return;
  const isAsync = callback.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.AsyncKeyword) ?? false;
  const returnsToolCall = !ts.isBlock(callback.body) && toolCallName(skipParentheses(callback.body)) !== undefined;
  if (!isAsync && !returnsToolCall) return;
  const first = firstToolCall(callback.body);
  if (first === undefined) return;
  warnings.push({
    position: first.node.getStart(),
    code: "floating-tool-call",
    message:
      `forEach ignores the promise its callback returns, so this ${first.name}(...) call is never awaited by ` +
      `the program: its errors are lost and the program may end first. Use \`for (const item of items)\` ` +
      `with \`await\`, or \`await Promise.all(items.map(...))\`.`,
  });
}

function firstToolCall(node: TS.Node): { node: TS.Node; name: string } | undefined {
  const name = toolCallName(node);
  if (name !== undefined) return { node, name };
  if (ts.isFunctionLike(node) && node.parent !== undefined && !ts.isCallExpression(node.parent)) return undefined;
  return ts.forEachChild(node, firstToolCall);
}
