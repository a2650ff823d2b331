// Task: Which services depend on db, directly or through another service? Use the memory graph.
const graph = await tools.memory.read_graph();
const dependents = new Map<string, string[]>();
for (const relation of graph.relations) {
  if (relation.relationType !== "depends_on") continue;
  dependents.set(relation.to, [...(dependents.get(relation.to) ?? []), relation.from]);
}
const seen = new Set<string>();
const queue = ["db"];
while (queue.length > 0) {
  const service = queue.shift()!;
  for (const dependent of dependents.get(service) ?? []) {
    if (!seen.has(dependent)) {
      seen.add(dependent);
      queue.push(dependent);
    }
  }
}
const direct = (dependents.get("db") ?? []).sort();
return { direct, all: [...seen].sort() };
