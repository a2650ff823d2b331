// Task: The echo, get-sum and get-env tools declare no output type. Call each once and show me what they return (for get-env, just the variable names).
const [echo, sum, env] = await Promise.all([
  tools.everything.echo({ message: "probe" }),
  tools.everything.get_sum({ a: 2, b: 3 }),
  tools.everything.get_env(),
]);
return { echo, sum, envKind: Array.isArray(env) ? "array" : typeof env, envNames: Object.keys(env).sort() };
