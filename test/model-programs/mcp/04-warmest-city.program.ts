// Task: Which of New York, Chicago and Los Angeles is warmest right now according to get-structured-content, and what are the conditions there?
const cities = ["New York", "Chicago", "Los Angeles"] as const;
const reports = await Promise.all(cities.map((location) => tools.everything.get_structured_content({ location })));
let best = 0;
reports.forEach((report, i) => {
  if (report.temperature > reports[best]!.temperature) best = i;
});
return {
  warmest: cities[best],
  temperature: reports[best]!.temperature,
  conditions: reports[best]!.conditions,
  all: Object.fromEntries(cities.map((city, i) => [city, reports[i]!.temperature])),
};
