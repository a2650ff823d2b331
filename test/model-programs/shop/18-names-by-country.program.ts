// Task: Group our customers' names by country, names sorted, countries sorted.
const customers = await tools.shop.list_customers({});
const groups = {};
for (const c of customers) (groups[c.country] ||= []).push(c.name);
return Object.fromEntries(
  Object.entries(groups)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([country, names]) => [country, names.sort()]),
);
