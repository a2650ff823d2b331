// Task: Note in memory that api and worker run on Kubernetes and that db is backed up nightly. Then show me each of those three services' observations.
const added = await tools.memory.add_observations({
  observations: [
    { entityName: "api", contents: ["runs on kubernetes"] },
    { entityName: "worker", contents: ["runs on kubernetes"] },
    { entityName: "db", contents: ["backed up nightly"] },
  ],
});
const opened = await tools.memory.open_nodes({ names: ["api", "worker", "db"] });
return {
  added: added.results.map((r) => ({ entity: r.entityName, count: r.addedObservations.length })),
  observations: Object.fromEntries(opened.entities.map((e) => [e.name, e.observations])),
};
