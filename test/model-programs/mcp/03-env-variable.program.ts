// Task: What is the value of SWITCHYARD_CORPUS in the everything server's environment, and does it have a PATH?
const env = await tools.everything.get_env();
return { SWITCHYARD_CORPUS: env.SWITCHYARD_CORPUS, hasPath: typeof env.PATH === "string" && env.PATH.length > 0 };
