// Task: We retired the queue service. Remove it from memory and confirm no relation still points at it.
const before = await tools.memory.read_graph();
const touching = before.relations.filter((r) => r.from === "queue" || r.to === "queue").length;
const deleted = await tools.memory.delete_entities({ entityNames: ["queue"] });
const after = await tools.memory.read_graph();
return {
  deleted: deleted.success,
  relationsBefore: touching,
  stillThere: after.entities.some((e) => e.name === "queue"),
  dangling: after.relations.filter((r) => r.from === "queue" || r.to === "queue").length,
  services: after.entities.map((e) => e.name).sort(),
};
