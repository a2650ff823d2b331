// Task: Work out 17+25 and 100+23 with the get-sum tool, store the results in memory as observations on a new entity "arithmetic" (type "note"), and read them back.
const pairs = [[17, 25], [100, 23]] as const;
const sums = await Promise.all(pairs.map(([a, b]) => tools.everything.get_sum({ a, b })));
const lines = sums.map((blocks) => blocks.map((block) => block.text).join(" ").trim());
await tools.memory.create_entities({ entities: [{ name: "arithmetic", entityType: "note", observations: lines }] });
const opened = await tools.memory.open_nodes({ names: ["arithmetic"] });
return { stored: opened.entities[0]?.observations ?? [], entityType: opened.entities[0]?.entityType ?? null };
