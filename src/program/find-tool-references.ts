// Finds, from the syntax tree alone, which parts of the `tools` object a program reads, so it can be
// type-checked against the declarations of those tools only. It errs towards more: any use of
// `tools` (or of a namespace) it cannot follow asks for all of it, so a program is never checked
// against less than it uses. It knows nothing of the catalog; the host resolves the names.

import { createRequire } from "node:module";
import type * as TS from "typescript";
import { parseWrappedProgram } from "./parse-wrapped-program.js";
import type { ProgramForm } from "./program-wrapper.js";
import { type ToolReferences, WHOLE_CATALOG } from "./tool-references.js";

export { type ToolReferences, WHOLE_CATALOG };

// Loaded with require, not import: see type-check-program.ts (saves a 300 ms export scan).
const ts = createRequire(import.meta.url)("typescript") as typeof TS;

/** Distinct names (keys, members, type names) past which a program is checked against the whole catalog. */
export const MAX_REFERENCED_NAMES = 2_000;

const TOOLS = "tools";
const GENERATED_TYPE_WORD = /Input|Output|Observed/;

type Entity = { readonly level: "tools" } | { readonly level: "key"; readonly key: string };

/**
 * The references of `source` (wrapped as `form`). `isGlobalType` says whether a name is a type the
 * lib declares. Never throws: a program it cannot parse or walk asks for the whole catalog.
 */
export function findToolReferences(
  source: string,
  form: ProgramForm,
  isGlobalType: (name: string) => boolean,
): ToolReferences {
  try {
    return referencesOf(parseWrappedProgram(source, form), isGlobalType);
  } catch {
    return WHOLE_CATALOG;
  }
}

function referencesOf(file: TS.SourceFile, isGlobalType: (name: string) => boolean): ToolReferences {
  const usesByName = new Map<string, TS.Identifier[]>();
  const declaredTypes = new Set<string>();
  const typeNames = new Set<string>();
  const candidates = new Set<string>();
  // Iterative: a deeply nested program must not overflow the walk's stack.
  const stack: TS.Node[] = [file];
  while (stack.length > 0) {
    const node = stack.pop() as TS.Node;
    if (ts.isIdentifier(node)) {
      const name = node.text;
      if (GENERATED_TYPE_WORD.test(name)) candidates.add(name);
      if (isValueReference(node)) {
        let uses = usesByName.get(name);
        if (uses === undefined) usesByName.set(name, (uses = []));
        uses.push(node);
      }
    } else if (isTypeDeclaration(node) && node.name !== undefined && ts.isIdentifier(node.name)) {
      declaredTypes.add(node.name.text);
    } else if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) {
      typeNames.add(node.typeName.text);
    } else if (
      ts.isExpressionWithTypeArguments(node) &&
      ts.isIdentifier(node.expression) &&
      ts.isHeritageClause(node.parent) &&
      ts.isInterfaceDeclaration(node.parent.parent)
    ) {
      typeNames.add(node.expression.text);
    }
    ts.forEachChild(node, (child) => {
      stack.push(child);
    });
  }

  const found = new Collector();
  const aliases = new Aliases(found);
  for (const use of usesByName.get(TOOLS) ?? []) follow(use, { level: "tools" }, found, aliases);
  for (const [alias, key] of aliases.byName) {
    const before = found.size;
    // By name, not by scope: another variable with the alias's name only adds to what is declared.
    for (const use of usesByName.get(alias) ?? []) follow(use, { level: "key", key }, found, aliases, false);
    // `tools.key` must still be declared when the alias is read for nothing (or only for members known already).
    if (found.size === before) found.whole({ level: "key", key });
  }
  const unresolved = [...typeNames].filter((name) => !declaredTypes.has(name) && !isGlobalType(name));
  if (
    found.wholeCatalog ||
    found.size > MAX_REFERENCED_NAMES ||
    candidates.size > MAX_REFERENCED_NAMES ||
    unresolved.length > MAX_REFERENCED_NAMES
  ) {
    return WHOLE_CATALOG;
  }
  return {
    wholeCatalog: false,
    namespaces: [...found.namespaces],
    members: [...found.members.values()],
    typeNameCandidates: [...candidates],
    unresolvedTypeNames: unresolved,
  };
}

class Collector {
  wholeCatalog = false;
  readonly namespaces = new Set<string>();
  /** By `JSON.stringify([key, member])`, so no two keys can run together. */
  readonly members = new Map<string, readonly [string, string]>();

  get size(): number {
    return this.namespaces.size + this.members.size;
  }

  whole(entity: Entity): void {
    if (entity.level === "tools") this.wholeCatalog = true;
    else this.namespaces.add(entity.key);
  }

  member(key: string, member: string): void {
    this.members.set(JSON.stringify([key, member]), [key, member]);
  }
}

/** `const gh = tools.github` and `const { github } = tools`: alias names, each standing for one key. */
class Aliases {
  readonly byName = new Map<string, string>();
  readonly #found: Collector;

  constructor(found: Collector) {
    this.#found = found;
  }

  set(name: string, key: string): void {
    const known = this.byName.get(name);
    // One name for two keys (two scopes): both are declared whole, whichever a use reads.
    if (known !== undefined && known !== key) {
      this.#found.whole({ level: "key", key: known });
      this.#found.whole({ level: "key", key });
    }
    if (name !== TOOLS) this.byName.set(name, key);
    else this.#found.whole({ level: "key", key });
  }
}

/**
 * Follows one use of `entity` (`tools`, or `tools[key]`) outwards through the expression around it
 * and records what it reads. `mayAlias`: a `const x = tools.key` declaration makes `x` an alias.
 */
function follow(node: TS.Node, entity: Entity, found: Collector, aliases: Aliases, mayAlias = true): void {
  let current = node;
  // `(tools).a`, `tools!.a` read the same object.
  while (
    (ts.isParenthesizedExpression(current.parent) || ts.isNonNullExpression(current.parent)) &&
    current.parent.expression === current
  ) {
    current = current.parent;
  }
  const parent = current.parent;
  const read = readKey(parent, current);
  if (read !== undefined) {
    if (read.key === undefined) found.whole(entity);
    else if (entity.level === "key") found.member(entity.key, read.key);
    else follow(parent, { level: "key", key: read.key }, found, aliases, mayAlias);
    return;
  }
  if (ts.isVariableDeclaration(parent) && parent.initializer === current) {
    if (ts.isIdentifier(parent.name) && entity.level === "key" && mayAlias) {
      aliases.set(parent.name.text, entity.key);
      return;
    }
    if (ts.isObjectBindingPattern(parent.name)) {
      destructure(parent.name, entity, found, aliases, mayAlias);
      return;
    }
  }
  found.whole(entity);
}

/** `const { a, b: { c } } = entity`: each element read by its written name; anything else reads all. */
function destructure(
  pattern: TS.ObjectBindingPattern,
  entity: Entity,
  found: Collector,
  aliases: Aliases,
  mayAlias: boolean,
): void {
  for (const element of pattern.elements) {
    const key = bindingKey(element);
    // A rest element or a computed key reads what cannot be named; a default value is compared with the whole.
    if (key === undefined || element.dotDotDotToken !== undefined || element.initializer !== undefined) {
      found.whole(key === undefined || element.dotDotDotToken !== undefined ? entity : keyed(entity, key));
      continue;
    }
    if (entity.level === "key") {
      found.member(entity.key, key);
      continue;
    }
    if (ts.isIdentifier(element.name)) {
      if (mayAlias) aliases.set(element.name.text, key);
      else found.whole({ level: "key", key });
    } else if (ts.isObjectBindingPattern(element.name)) {
      destructure(element.name, { level: "key", key }, found, aliases, mayAlias);
    } else found.whole({ level: "key", key });
  }
}

function keyed(entity: Entity, key: string): Entity {
  return entity.level === "tools" ? { level: "key", key } : entity;
}

function bindingKey(element: TS.BindingElement): string | undefined {
  const name = element.propertyName ?? element.name;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  if (ts.isComputedPropertyName(name) && isStaticKey(name.expression)) return name.expression.text;
  return undefined;
}

/** `parent` reads a property of `object`: its key when written out, `{ key: undefined }` when computed. */
function readKey(parent: TS.Node, object: TS.Node): { key: string | undefined } | undefined {
  if (ts.isPropertyAccessExpression(parent) && parent.expression === object) {
    return { key: ts.isIdentifier(parent.name) ? parent.name.text : undefined };
  }
  if (ts.isElementAccessExpression(parent) && parent.expression === object) {
    return { key: isStaticKey(parent.argumentExpression) ? parent.argumentExpression.text : undefined };
  }
  if (ts.isQualifiedName(parent) && parent.left === object) return { key: parent.right.text };
  return undefined;
}

function isStaticKey(node: TS.Expression): node is TS.StringLiteral | TS.NoSubstitutionTemplateLiteral {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

function isTypeDeclaration(
  node: TS.Node,
): node is
  | TS.InterfaceDeclaration
  | TS.TypeAliasDeclaration
  | TS.ClassLikeDeclaration
  | TS.EnumDeclaration
  | TS.TypeParameterDeclaration {
  return (
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isClassExpression(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isTypeParameterDeclaration(node)
  );
}

/**
 * Whether `node` reads a variable by that name. Errs towards yes: only positions that certainly
 * name something else (a property after `.`, a key, a declared name, a label, a type) are excluded.
 */
function isValueReference(node: TS.Identifier): boolean {
  const parent = node.parent;
  if (parent === undefined) return false;
  if (ts.isPropertyAccessExpression(parent)) return parent.expression === node;
  if (ts.isQualifiedName(parent)) return parent.left === node;
  if (ts.isPropertyAssignment(parent)) return parent.name !== node;
  if (ts.isBindingElement(parent)) return parent.name !== node && parent.propertyName !== node;
  if (
    ts.isLabeledStatement(parent) ||
    ts.isBreakOrContinueStatement(parent) ||
    ts.isTypeReferenceNode(parent) ||
    ts.isTypeParameterDeclaration(parent)
  ) {
    return false;
  }
  // `{ tools }` passes the value on; every other node holding it as its `name` declares that name.
  if (ts.isShorthandPropertyAssignment(parent)) return true;
  return (parent as TS.Node & { readonly name?: TS.Node }).name !== node;
}
