// Task: Look up customers C-100, C-999 and C-105; tell me their names and which ids do not exist.
const ids = ["C-100", "C-999", "C-105"];
const found = {};
const missing = [];
for (const id of ids) {
  try {
    const customer = await tools.shop.get_customer({ id });
    found[id] = customer.name;
  } catch (e) {
    missing.push({ id, code: isToolCallError(e) ? e.code : "UNKNOWN" });
  }
}
return { found, missing };
