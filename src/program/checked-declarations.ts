// The declarations a session's programs are checked against, assembled per program from the tools
// it references (see find-tool-references.ts) plus the runtime's, so a check costs what the
// program uses, not what the catalog holds. Each tool's text is rendered once and kept until its
// observed type changes; the text for any set of tools reads exactly as it does in the whole text.

import type { CatalogSnapshot, RegisteredTool } from "../registry/tool-registry.js";
import {
  assembleDeclarations,
  fitObservedTypes,
  RUNTIME_DECLARATIONS,
  renderToolPart,
  reservedTypeNames,
  type ToolDeclarationMember,
  type ToolDeclarationPart,
} from "../schema/generate-declarations.js";
import type { ObservedType } from "../schema/observed-output-types.js";
import { toTypeName } from "../schema/schema-to-typescript.js";
import { declarationToolOf } from "../search/discovery.js";
import type { ContractDeclarations } from "./contract-declarations.js";
import type { ToolReferences } from "./tool-references.js";

/** Declarations chosen per program: what `TypeChecker.check` takes instead of one fixed text. */
export interface ScopedDeclarations {
  /**
   * The runtime declarations and those of the tools `references` need; the whole catalog's when
   * the references cannot be resolved (an unknown key, an unknown type name: their did-you-mean
   * reads the whole catalog). `contract` declares names of its own, which resolve nothing here.
   */
  select(references: ToolReferences, contract: ContractDeclarations): string;
}

/** Counters a test or benchmark can read; they never influence a check. */
export interface CheckedDeclarationsStats {
  /** Tool parts rendered (a tool, or a group of tools sharing type names, after a change). */
  readonly renders: number;
  /** Selections that fell back to the whole catalog. */
  readonly wholeCatalog: number;
}

/** Members every run's `tools` has besides the tools (RUNTIME_DECLARATIONS' ToolsRuntime). */
const RUNTIME_MEMBERS: ReadonlySet<string> = new Set(["$search", "$describe", "$budget"]);
/** Every generated type name is a tool's base name followed by one of these (see renderToolPart). */
const NAME_WORDS = ["Input", "Output", "Observed"] as const;
const NAME_WORD = /Input|Output|Observed/;
const TOP_LEVEL_TYPE = /^(?:interface|type)\s+([A-Za-z_$][\w$]*)/gm;
const RUNTIME_TYPE_NAMES: ReadonlySet<string> = typeNamesIn(RUNTIME_DECLARATIONS);

interface RenderedPart {
  /** The observed type's revision it was rendered with; -1 for none. */
  readonly revision: number;
  readonly part: ToolDeclarationPart;
  /** The type names it declares. */
  readonly names: ReadonlySet<string>;
}

/** What one catalog snapshot's program-callable tools look like by name; built once per snapshot. */
interface CatalogIndex {
  readonly snapshot: CatalogSnapshot;
  readonly position: ReadonlyMap<RegisteredTool, number>;
  readonly tools: readonly RegisteredTool[];
  /** Namespace identifier -> method identifier -> tool, in catalog order. */
  readonly namespaces: ReadonlyMap<string, ReadonlyMap<string, RegisteredTool>>;
  readonly bare: ReadonlyMap<string, RegisteredTool>;
  readonly byBaseName: ReadonlyMap<string, readonly RegisteredTool[]>;
  /** Tools whose type names could collide with another's: rendered together, in catalog order. */
  readonly groups: ReadonlyMap<RegisteredTool, readonly RegisteredTool[]>;
  /** Tools whose type names could collide with a run's contract types (ProgramInput, ProgramOutput). */
  readonly nearContract: readonly RegisteredTool[];
}

/** Tools a `prepare` step indexes: about 2 ms of work the first time. */
const PREPARE_STEP_TOOLS = 500;
/** Tools whose parts one `prepareParts` step renders (about 35 µs each). */
const PREPARE_STEP_RENDERS = 100;

/** Base names by tool, across snapshots: a catalog change re-derives only its new tools'. */
const baseNames = new WeakMap<RegisteredTool, string>();

/** One session's declarations, see the module comment; follows catalog snapshots and observed types. */
export class CheckedDeclarations {
  #index: CatalogIndex | undefined;
  /** The index `prepare` is building, a step at a time. */
  #building: CatalogIndexBuilder | undefined;
  readonly #parts = new WeakMap<RegisteredTool, RenderedPart>();
  /** Group renders of the current index, by the group's first tool. */
  #groupParts = new Map<RegisteredTool, ReadonlyMap<RegisteredTool, RenderedPart>>();
  #cut: { index: CatalogIndex; observed: ObservedMap; tools: ReadonlySet<RegisteredTool> } | undefined;
  #whole: { index: CatalogIndex; observed: ObservedMap; text: string } | undefined;
  #renders = 0;
  /** How far `prepareParts` has rendered the current index. */
  #rendering: { readonly index: CatalogIndex; next: number } | undefined;
  #wholeCatalog = 0;

  /** Counters for tests and benchmarks. */
  get stats(): CheckedDeclarationsStats {
    return { renders: this.#renders, wholeCatalog: this.#wholeCatalog };
  }

  /** The declarations of `snapshot` with `observed` types, chosen when a program's references are known. */
  scope(snapshot: CatalogSnapshot, observed: ObservedMap): ScopedDeclarations {
    return { select: (references, contract) => this.#select(snapshot, observed, references, contract) };
  }

  /** The runtime declarations and every program-callable tool's: what a program that uses all of them is checked against. */
  whole(snapshot: CatalogSnapshot, observed: ObservedMap): string {
    const index = this.#indexOf(snapshot);
    if (this.#whole?.index !== index || this.#whole.observed !== observed) {
      this.#whole = { index, observed, text: this.#assemble(index, observed, index.tools) };
    }
    return this.#whole.text;
  }

  /**
   * The type names of the whole text a run's contract types could collide with: the runtime's and
   * those of the tools whose names start like `ProgramInput` or `ProgramOutput`.
   */
  contractTakenNames(snapshot: CatalogSnapshot, observed: ObservedMap): Set<string> {
    const index = this.#indexOf(snapshot);
    const names = new Set(RUNTIME_TYPE_NAMES);
    for (const tool of index.nearContract)
      for (const name of this.#partOf(index, tool, observed).names) names.add(name);
    return names;
  }

  #select(
    snapshot: CatalogSnapshot,
    observed: ObservedMap,
    references: ToolReferences,
    contract: ContractDeclarations,
  ): string {
    const index = this.#indexOf(snapshot);
    const chosen = references.wholeCatalog ? undefined : this.#resolve(index, observed, references, contract);
    if (chosen === undefined) {
      this.#wholeCatalog += 1;
      return this.whole(snapshot, observed);
    }
    const tools = [...chosen].sort((a, b) => (index.position.get(a) ?? 0) - (index.position.get(b) ?? 0));
    return this.#assemble(index, observed, tools);
  }

  /** The tools `references` need; undefined when only the whole catalog will do. */
  #resolve(
    index: CatalogIndex,
    observed: ObservedMap,
    references: ToolReferences,
    contract: ContractDeclarations,
  ): Set<RegisteredTool> | undefined {
    const chosen = new Set<RegisteredTool>();
    const addKey = (key: string): boolean => {
      const namespace = index.namespaces.get(key);
      if (namespace !== undefined) for (const tool of namespace.values()) chosen.add(tool);
      const bare = index.bare.get(key);
      if (bare !== undefined) chosen.add(bare);
      return namespace !== undefined || bare !== undefined || RUNTIME_MEMBERS.has(key);
    };
    for (const key of references.namespaces) if (!addKey(key)) return undefined;
    for (const [key, member] of references.members) {
      const tool = index.namespaces.get(key)?.get(member);
      // An unknown member: the namespace's type is printed in full with its did-you-mean.
      if (tool !== undefined) chosen.add(tool);
      else if (!addKey(key)) return undefined;
    }
    for (const name of references.typeNameCandidates) {
      for (const owner of this.#ownersOf(index, observed, name)) chosen.add(owner);
    }
    const contractNames = references.unresolvedTypeNames.length === 0 ? undefined : typeNamesIn(contract.declarations);
    for (const name of references.unresolvedTypeNames) {
      if (RUNTIME_TYPE_NAMES.has(name) || contractNames?.has(name) === true) continue;
      const owners = this.#ownersOf(index, observed, name);
      // A name nothing declares: "Cannot find name" suggests from every type of the whole text.
      if (owners.length === 0) return undefined;
      for (const owner of owners) chosen.add(owner);
    }
    return chosen;
  }

  /** The tools declaring type `name`: found by base name, since every generated name starts with one. */
  #ownersOf(index: CatalogIndex, observed: ObservedMap, name: string): RegisteredTool[] {
    const owners: RegisteredTool[] = [];
    for (const at of wordPositions(name)) {
      for (const tool of index.byBaseName.get(name.slice(0, at)) ?? []) {
        if (this.#partOf(index, tool, observed).names.has(name)) owners.push(tool);
      }
    }
    return owners;
  }

  /**
   * The declarations of `tools` of `snapshot` as `tools.$describe` and search answers show them:
   * every type named as the checks name it (tools whose base names collide are numbered as in the
   * whole text, not afresh per answer), without the runtime's. A tool programs cannot call is
   * rendered after them, its names clear of theirs.
   */
  describe(snapshot: CatalogSnapshot, observed: ObservedMap, tools: readonly RegisteredTool[]): string {
    if (tools.length === 0) return "";
    const index = this.#indexOf(snapshot);
    const declared = tools.filter((tool) => index.position.has(tool));
    const members = this.#members(index, observed, declared);
    if (declared.length < tools.length) {
      const taken = reservedTypeNames();
      for (const tool of declared) for (const name of this.#partOf(index, tool, observed).names) taken.add(name);
      for (const tool of tools) {
        if (!index.position.has(tool))
          members.push(renderToolPart(declarationToolOf(tool, observedTypeOf(tool, observed)), taken).member);
      }
    }
    return assembleDeclarations(members, "");
  }

  #assemble(index: CatalogIndex, observed: ObservedMap, tools: readonly RegisteredTool[]): string {
    return `${RUNTIME_DECLARATIONS}\n${assembleDeclarations(this.#members(index, observed, tools))}`;
  }

  #members(index: CatalogIndex, observed: ObservedMap, tools: readonly RegisteredTool[]): ToolDeclarationMember[] {
    const cut = this.#cutTools(index, observed);
    return tools.map((tool) => {
      const { part } = this.#partOf(index, tool, observed);
      return cut.has(tool) ? (part.withoutObserved ?? part.member) : part.member;
    });
  }

  /** The tools whose observed type the whole text's budget leaves out (decided in catalog order). */
  #cutTools(index: CatalogIndex, observed: ObservedMap): ReadonlySet<RegisteredTool> {
    if (this.#cut?.index === index && this.#cut.observed === observed) return this.#cut.tools;
    const withObserved: RegisteredTool[] = [];
    for (const name of observed?.keys() ?? []) {
      const tool = index.snapshot.get(name);
      if (tool !== undefined && tool.definition.name === name && index.position.has(tool)) withObserved.push(tool);
    }
    withObserved.sort((a, b) => (index.position.get(a) ?? 0) - (index.position.get(b) ?? 0));
    const parts = withObserved.map((tool) => this.#partOf(index, tool, observed).part);
    const shown = fitObservedTypes(parts);
    const tools = new Set(withObserved.filter((_, position) => shown[position] === false));
    this.#cut = { index, observed, tools };
    return tools;
  }

  #partOf(index: CatalogIndex, tool: RegisteredTool, observed: ObservedMap): RenderedPart {
    const group = index.groups.get(tool);
    if (group !== undefined) return this.#groupPartOf(group, tool, observed);
    const type = observedTypeOf(tool, observed);
    const revision = type?.revision ?? -1;
    let rendered = this.#parts.get(tool);
    if (rendered?.revision !== revision) {
      const names = reservedTypeNames();
      const part = renderToolPart(declarationToolOf(tool, type), names);
      for (const reserved of reservedTypeNames()) names.delete(reserved);
      rendered = { revision, part, names };
      this.#renders += 1;
      this.#parts.set(tool, rendered);
    }
    return rendered;
  }

  /** A group's parts, rendered together in catalog order, as the whole text renders them. */
  #groupPartOf(group: readonly RegisteredTool[], tool: RegisteredTool, observed: ObservedMap): RenderedPart {
    const first = group[0] as RegisteredTool;
    let parts = this.#groupParts.get(first);
    const stale =
      parts === undefined ||
      group.some((member) => parts?.get(member)?.revision !== (observedTypeOf(member, observed)?.revision ?? -1));
    if (stale) {
      const taken = reservedTypeNames();
      const rendered = new Map<RegisteredTool, RenderedPart>();
      for (const member of group) {
        const before = taken.size;
        const type = observedTypeOf(member, observed);
        const part = renderToolPart(declarationToolOf(member, type), taken);
        rendered.set(member, { revision: type?.revision ?? -1, part, names: new Set([...taken].slice(before)) });
      }
      this.#renders += 1;
      this.#groupParts.set(first, rendered);
      parts = rendered;
    }
    return parts?.get(tool) as RenderedPart;
  }

  /**
   * Indexes up to `stepTools` more tools of `snapshot` (default 500) for the checks to come: a
   * session's warm-up calls it once per turn of the event loop, each step about 2 ms. True once the
   * index is whole. A check that comes first finishes the index itself; a step on another snapshot
   * (the catalog changed) starts over on it.
   */
  prepare(snapshot: CatalogSnapshot, stepTools = PREPARE_STEP_TOOLS): boolean {
    if (this.#index?.snapshot === snapshot) return true;
    if (this.#building?.snapshot !== snapshot) this.#building = new CatalogIndexBuilder(snapshot);
    if (!this.#building.step(stepTools)) return false;
    this.#indexOf(snapshot);
    return true;
  }

  /** One step of a session's warm-up: `prepare`, then `prepareParts` once the index is whole; true when both are done. */
  warmUpStep(snapshot: CatalogSnapshot, observed: ObservedMap): boolean {
    return this.prepare(snapshot) && this.prepareParts(snapshot, observed);
  }

  /**
   * Renders the parts of up to `stepTools` more tools of `snapshot` (default 100, about 4 ms), after
   * its index: the first check of a program that uses `tools` whole then joins them rather than
   * rendering every tool at once on the event loop (176 ms at 5,000 tools). A session's warm-up
   * calls it once per turn after `prepare` (`warmUpStep`); true once every part is rendered.
   */
  prepareParts(snapshot: CatalogSnapshot, observed: ObservedMap, stepTools = PREPARE_STEP_RENDERS): boolean {
    const index = this.#indexOf(snapshot);
    if (this.#rendering?.index !== index) this.#rendering = { index, next: 0 };
    const rendering = this.#rendering;
    const end = Math.min(index.tools.length, rendering.next + stepTools);
    for (; rendering.next < end; rendering.next++) this.#partOf(index, index.tools[rendering.next]!, observed);
    return rendering.next >= index.tools.length;
  }

  #indexOf(snapshot: CatalogSnapshot): CatalogIndex {
    if (this.#index?.snapshot !== snapshot) {
      const builder = this.#building?.snapshot === snapshot ? this.#building : new CatalogIndexBuilder(snapshot);
      this.#building = undefined;
      this.#index = builder.finish();
      this.#groupParts = new Map();
    }
    return this.#index;
  }
}

type ObservedMap = ReadonlyMap<string, ObservedType> | undefined;

/** The observed type a tool is declared with: none when it declares its own output type. */
function observedTypeOf(tool: RegisteredTool, observed: ObservedMap): ObservedType | undefined {
  return tool.definition.outputSchema === undefined ? observed?.get(tool.definition.name) : undefined;
}

/**
 * Builds a snapshot's CatalogIndex a slice of tools at a time, so a session can prepare it in the
 * background (about 4 µs per tool the first time: 20 ms at 5,000 tools, 200 ms at 50,000) instead
 * of on its first program's check; `finish` does what is left at once.
 */
class CatalogIndexBuilder {
  readonly snapshot: CatalogSnapshot;
  readonly #tools: RegisteredTool[] = [];
  readonly #position = new Map<RegisteredTool, number>();
  readonly #namespaces = new Map<string, Map<string, RegisteredTool>>();
  readonly #bare = new Map<string, RegisteredTool>();
  readonly #byBaseName = new Map<string, RegisteredTool[]>();
  readonly #nearContract: RegisteredTool[] = [];
  /** The next tool of `snapshot.tools` to index. */
  #next = 0;

  constructor(snapshot: CatalogSnapshot) {
    this.snapshot = snapshot;
  }

  /** Indexes up to `count` more tools; true once every tool is indexed. */
  step(count: number): boolean {
    const all = this.snapshot.tools;
    const end = Math.min(all.length, this.#next + count);
    for (; this.#next < end; this.#next++) {
      const tool = all[this.#next] as RegisteredTool;
      if (tool.definition.callers.includes("program")) this.#add(tool);
    }
    return this.#next >= all.length;
  }

  /** The whole index: the tools not yet indexed are indexed now. */
  finish(): CatalogIndex {
    this.step(Number.POSITIVE_INFINITY);
    const groups = groupsOf(this.#byBaseName, this.#position);
    return {
      snapshot: this.snapshot,
      position: this.#position,
      tools: this.#tools,
      namespaces: this.#namespaces,
      bare: this.#bare,
      byBaseName: this.#byBaseName,
      groups,
      nearContract: this.#nearContract,
    };
  }

  #add(tool: RegisteredTool): void {
    this.#position.set(tool, this.#tools.length);
    this.#tools.push(tool);
    const { namespaceIdentifier, localIdentifier } = tool.parsedName;
    if (namespaceIdentifier === undefined) this.#bare.set(localIdentifier, tool);
    else {
      let members = this.#namespaces.get(namespaceIdentifier);
      if (members === undefined) this.#namespaces.set(namespaceIdentifier, (members = new Map()));
      members.set(localIdentifier, tool);
    }
    let baseName = baseNames.get(tool);
    if (baseName === undefined) {
      baseName = toTypeName(namespaceIdentifier ?? "", localIdentifier);
      baseNames.set(tool, baseName);
    }
    // A contract's names start with ProgramInput or ProgramOutput; a tool's with its base name and a word.
    if (baseName === "Program" || baseName.startsWith("ProgramInput") || baseName.startsWith("ProgramOutput")) {
      this.#nearContract.push(tool);
    }
    const same = this.#byBaseName.get(baseName);
    if (same === undefined) this.#byBaseName.set(baseName, [tool]);
    else same.push(tool);
  }
}

/**
 * Tools whose type names may collide: one tool's names are its base name `B` followed by a name
 * word, so two tools can share a name only when their base names are equal or one is the other
 * followed by a word (`GetInput` after `Get`). Such tools are rendered together, in catalog order.
 */
function groupsOf(
  byBaseName: ReadonlyMap<string, readonly RegisteredTool[]>,
  position: ReadonlyMap<RegisteredTool, number>,
): Map<RegisteredTool, readonly RegisteredTool[]> {
  const parent = new Map<RegisteredTool, RegisteredTool>();
  const root = (tool: RegisteredTool): RegisteredTool => {
    let found = tool;
    while (parent.get(found) !== undefined && parent.get(found) !== found) found = parent.get(found) as RegisteredTool;
    return found;
  };
  const join = (a: RegisteredTool, b: RegisteredTool): void => {
    if (!parent.has(a)) parent.set(a, a);
    if (!parent.has(b)) parent.set(b, b);
    parent.set(root(a), root(b));
  };
  for (const [baseName, tools] of byBaseName) {
    const first = tools[0] as RegisteredTool;
    for (let at = 1; at < tools.length; at++) join(first, tools[at] as RegisteredTool);
    if (!NAME_WORD.test(baseName)) continue;
    for (const at of wordPositions(baseName)) {
      for (const other of byBaseName.get(baseName.slice(0, at)) ?? []) join(first, other);
    }
  }
  const members = new Map<RegisteredTool, RegisteredTool[]>();
  for (const tool of parent.keys()) {
    const top = root(tool);
    let group = members.get(top);
    if (group === undefined) members.set(top, (group = []));
    group.push(tool);
  }
  const groups = new Map<RegisteredTool, readonly RegisteredTool[]>();
  for (const group of members.values()) {
    group.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
    for (const tool of group) groups.set(tool, group);
  }
  return groups;
}

/** Where a name word (Input, Output, Observed) starts in `name`: where a base name may end. */
function wordPositions(name: string): number[] {
  const positions: number[] = [];
  for (const word of NAME_WORDS) {
    for (let at = name.indexOf(word); at !== -1; at = name.indexOf(word, at + 1)) positions.push(at);
  }
  return positions;
}

function typeNamesIn(declarations: string): Set<string> {
  const names = new Set<string>();
  for (const match of declarations.matchAll(TOP_LEVEL_TYPE)) names.add(match[1] as string);
  return names;
}
