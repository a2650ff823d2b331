// Task: Which services in memory mention kubernetes, and what do they depend on?
const found = await tools.memory.search_nodes({ query: "kubernetes" });
const names = found.entities.map((e) => e.name).sort();
const graph = await tools.memory.read_graph();
const dependencies = Object.fromEntries(
  names.map((name) => [
    name,
    graph.relations
      .filter((r) => r.from === name && r.relationType === "depends_on")
      .map((r) => r.to)
      .sort(),
  ]),
);
return { services: names, dependencies };
