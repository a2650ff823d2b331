// Task: Use the get-sum tool to add up each of these pairs and give me the totals: [1, 2], [10, 32], [-5, 5], [2.5, 0.25], [1000, 2000].
const pairs: [number, number][] = [[1, 2], [10, 32], [-5, 5], [2.5, 0.25], [1000, 2000]];
const answers = await Promise.all(pairs.map(([a, b]) => tools.everything.get_sum({ a, b })));
const totals = answers.map((blocks, i) => {
  const text = blocks.map((block) => block.text).join(" ");
  const match = /is (-?\d+(?:\.\d+)?)\.?$/.exec(text.trim());
  return { pair: pairs[i], total: match ? Number(match[1]) : null, text };
});
return { totals: totals.map((t) => t.total), unparsed: totals.filter((t) => t.total === null).map((t) => t.text) };
