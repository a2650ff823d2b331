// Task: Record our services in the memory graph: api (depends on auth and db), auth (depends on db), db, and worker (depends on db and queue), queue. Each is an entity of type "service" with the observation "owned by platform". Then tell me how many entities and relations the graph has.
const services = ["api", "auth", "db", "worker", "queue"];
const dependsOn: Record<string, string[]> = { api: ["auth", "db"], auth: ["db"], worker: ["db", "queue"] };
const created = await tools.memory.create_entities({
  entities: services.map((name) => ({ name, entityType: "service", observations: ["owned by platform"] })),
});
const relations = Object.entries(dependsOn).flatMap(([from, targets]) =>
  targets.map((to) => ({ from, to, relationType: "depends_on" })),
);
const linked = await tools.memory.create_relations({ relations });
const graph = await tools.memory.read_graph();
return {
  created: created.entities.length,
  linked: linked.relations.length,
  entities: graph.entities.length,
  relations: graph.relations.length,
};
