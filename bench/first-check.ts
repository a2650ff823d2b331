// Prints the share of the model-program corpus for untyped MCP tools (test/model-programs/shop)
// that passes the type check the first time: each program is checked against the declarations a
// model first sees (tools without an output type resolve to `any`), as `yard.check` does before a
// run. Every program there is correct JavaScript, so anything under 100% is a check that costs a
// model a turn for nothing. Run: npm run bench:first-check
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openShopSession } from "../test/model-programs/catalogs/shop-mcp.js";

const folder = fileURLToPath(new URL("../test/model-programs/shop/", import.meta.url));
const files = readdirSync(folder)
  .filter((name) => name.endsWith(".program.ts"))
  .sort();
const { yard, close } = await openShopSession();
let passed = 0;
try {
  for (const file of files) {
    const checked = await yard.check(readFileSync(join(folder, file), "utf8"));
    if (checked.ok) passed += 1;
    const first = checked.error?.message.split("\n")[1] ?? "";
    console.log(`${checked.ok ? "pass" : "FAIL"}  ${file}${checked.ok ? "" : `  ${checked.error?.code}: ${first}`}`);
  }
} finally {
  await close();
}
const share = files.length === 0 ? 0 : (passed / files.length) * 100;
console.log(`\n${passed} of ${files.length} programs pass the check the first time: ${share.toFixed(1)}%`);
