#!/usr/bin/env bash
# Consumer test: the package as a user gets it. Packs the checkout (prepack builds), installs
# the tarball into a fresh project without any optional peer (one install, about 1.5 minutes:
# isolated-vm builds from source), then, from that project:
#   - an ESM TypeScript consumer type-checks against the published declarations (tsc --noEmit, strict),
#     and so do the README's code blocks; the runnable ones run;
#   - the installed `switchyard` command runs a program whose TypeScript tool module imports the
#     package by name and throws a ToolError: its code reaches the program;
#   - a CommonJS project (a subfolder sharing the install) require()s the package, runs a program,
#     and gets OPTIONAL_DEPENDENCY_MISSING naming the install command from an adapter;
#   - with no isolated-vm binary, the command fails with one line saying what to do;
#   - with CONSUMER_FRAMEWORKS (e.g. "ai@7.0.173 @openai/agents@0.20.0 openai@7.59.0"), those are
#     installed next to the package and the AI SDK and Agents SDK examples type-check and run.
# Runs under the `node` and `npm` first on PATH (.ci/with-node.sh <major> [npm major] -- picks a line).
# Usage: .ci/consumer-test.sh [work folder]   (default: a new temporary folder, removed at the end)
# Environment: SWITCHYARD_TARBALL=<file> installs that tarball instead of packing the checkout;
# CONSUMER_SUMMARY=<file> appends one tab-separated row: node, npm, install s, isolate binary,
# quick start output, CommonJS, frameworks.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
[ -z "${1:-}" ] && trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
step() { printf '\n== consumer: %s\n' "$*"; }
fail() { printf 'consumer test FAILED: %s\n' "$*" >&2; exit 1; }
# Type-checks every .ts file of a folder of the project as a strict consumer module (libraries' own
# declarations skipped): the README blocks, and the framework examples.
type_check_folder() {
  cat >"$1/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022", "lib": ["ES2022"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "types": ["node"], "strict": true, "skipLibCheck": true, "noEmit": true
  },
  "include": ["*.ts"]
}
JSON
  npx tsc -p "$1/tsconfig.json"
}
# The repo's examples import the sources; a consumer imports the package by name.
import_by_package_name() {
  sed -e 's|"../../src/contract.js"|"switchyard-runtime"|; s|"../../src/switchyard.js"|"switchyard-runtime"|' \
    -e 's|"../support-desk/desk.js"|"./desk.js"|' "$@"
}

node_major="$(node -p 'process.versions.node.split(".")[0]')"
echo "node $(node --version), npm $(npm --version)"
cd "$repo"
if [ -n "${SWITCHYARD_TARBALL:-}" ]; then
  step "the tarball $SWITCHYARD_TARBALL"
  tarball="$SWITCHYARD_TARBALL"
else
  step "npm pack"
  tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
fi
listing="$(tar -tzf "$tarball")"
for required in package/dist/src/index.js package/dist/src/index.d.ts package/dist/src/agent/index.js \
  package/dist/src/gateway/index.js package/dist/src/testing/index.js package/dist/runtime/guest-runtime.iife.js \
  package/dist/browser/timeline-page.iife.js package/dist/browser/timeline-page.css package/dist/browser/timeline-data.d.ts \
  package/bin/switchyard.js package/switchyard.config.schema.json package/LICENSE package/README.md; do
  grep -qx "$required" <<<"$listing" || fail "the tarball lacks $required"
done
if grep -qE '^package/(src|test|bench|examples)/|\.map$' <<<"$listing"; then fail "the tarball ships sources, tests or maps"; fi
echo "$(wc -l <<<"$listing") files, $(du -k "$tarball" | cut -f1) KB"

step "install the tarball into a fresh project (no optional peers)"
project="$work/esm"
mkdir -p "$project"
cd "$project"
cat >package.json <<'JSON'
{ "name": "consumer-esm", "version": "1.0.0", "private": true, "type": "module" }
JSON
started=$SECONDS
npm install --no-audit --no-fund --loglevel=error "$tarball" "@types/node@$node_major" >/dev/null
install_seconds=$((SECONDS - started))
for peer in @anthropic-ai/sdk openai gpt-tokenizer; do
  [ ! -e "node_modules/$peer" ] || fail "optional peer $peer was installed"
done
echo "node_modules: $(du -sm node_modules | cut -f1) MB (with @types/node), installed in ${install_seconds} s"
# Which isolated-vm this Node loads: prebuilt (6.x/7.x ship prebuilds/ and load one unless npm built
# build/) or built at install (5.x: its install script compiles, or prebuild-install fetches, out/).
isolate="$(node -e '
const { createRequire } = require("node:module");
const { existsSync } = require("node:fs");
const { dirname, join } = require("node:path");
const fromPackage = createRequire(require.resolve("switchyard-runtime/package.json"));
for (const name of ["isolated-vm", "isolated-vm-7"]) {
  let folder;
  try { folder = dirname(fromPackage.resolve(`${name}/package.json`)); } catch { continue; }
  try { fromPackage(name); } catch { continue; }
  const { version } = require(join(folder, "package.json"));
  console.log(`${name}@${version} ${existsSync(join(folder, "prebuilds")) && !existsSync(join(folder, "build")) ? "prebuilt" : "built at install"}`);
  process.exit(0);
}
console.log("none");')"
echo "isolate binary: $isolate"
[ "$isolate" != none ] || fail "no isolated-vm loads on Node $node_major"

step "ESM TypeScript: type-check against the published declarations (strict)"
cat >tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022", "lib": ["ES2022"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "types": ["node"], "strict": true, "noUncheckedIndexedAccess": true, "exactOptionalPropertyTypes": true,
    "skipLibCheck": false, "noEmit": true
  },
  "include": ["consumer.ts", "tools.ts"]
}
JSON
cat >consumer.ts <<'TS'
import { Switchyard, ToolError, defineTool, type RunResult, type ToolDefinition } from "switchyard-runtime";

const lookup: ToolDefinition = defineTool({
  name: "crm.lookup",
  description: "Finds a contact.",
  inputSchema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
  effect: "read",
  execute: async (input: { email: string }) => {
    if (input.email === "") throw new ToolError("email is empty", { code: "BAD_EMAIL" });
    return { name: "Ada" };
  },
});
const yard = new Switchyard({ tools: [lookup] });
const result: RunResult = await yard.run(`return (await tools.crm.lookup({ email: "a@b.c" })).name;`);
if (result.output !== "Ada") throw new Error(`unexpected output ${JSON.stringify(result)}`);
if (!ToolError.isInstance(new ToolError("x"))) throw new Error("brand lost");
const stats = yard.catalogStats();
console.log(`ok ${stats.tokenizer}`);
await yard.close();
TS
cat >tools.ts <<'TS'
import { ToolError, defineTool } from "switchyard-runtime";

export const tools = [
  defineTool({
    name: "api.fetch",
    description: "Always rate limited.",
    inputSchema: { type: "object", properties: {} },
    effect: "read",
    execute: () => {
      throw new ToolError("slow down", { code: "RATE_LIMITED", details: { retryAfterMs: 10 } });
    },
  }),
];
TS
npx tsc -p tsconfig.json
node --no-node-snapshot --import tsx consumer.ts | tee consumer.out
quick_start="$(tail -n 1 consumer.out)"
grep -q "^ok estimate" consumer.out || fail "catalogStats().tokenizer should name the estimate without gpt-tokenizer"

step "README blocks against the published declarations"
(cd "$repo" && node --import tsx test/readme/readme-blocks.ts "$project/readme") | tee readme.list
type_check_folder readme
while read -r mode file; do
  [ "$mode" = run ] || continue
  (cd "$work" && node --no-node-snapshot --import "$project/node_modules/tsx/dist/loader.mjs" "$project/readme/$file") \
    || fail "README block $file did not run"
done <readme.list

step "the installed switchyard command: a ToolError code from a tool module reaches the program"
cat >program.ts <<'TS'
try {
  await tools.api.fetch({});
  return "no error";
} catch (error) {
  return { code: error.code, retryAfterMs: error.details?.retryAfterMs };
}
TS
./node_modules/.bin/switchyard run program.ts --tools ./tools.ts --json --report run.html >run.json
grep -q 'id="timeline-data"' run.html || fail "switchyard run --report wrote no timeline page"
node -e '
const result = JSON.parse(require("node:fs").readFileSync("run.json", "utf8"));
if (result.output?.code !== "RATE_LIMITED" || result.output?.retryAfterMs !== 10) {
  console.error(JSON.stringify(result, null, 2));
  process.exit(1);
}
console.log("program saw", JSON.stringify(result.output));'
./node_modules/.bin/switchyard demo >demo.out || fail "switchyard demo failed"
grep -q "ground truth" demo.out || fail "switchyard demo printed no ground truth"
set +e
./node_modules/.bin/switchyard run missing.ts --tools ./tools.ts 2>mistake.err
code=$?
set -e
[ "$code" = 2 ] || fail "a missing program file should exit 2, got $code"
[ "$(wc -l <mistake.err)" = 1 ] || fail "a missing program file should print one line: $(cat mistake.err)"

step "no isolated-vm binary: the command says so in one line"
mkdir -p hidden
for name in isolated-vm isolated-vm-7; do [ ! -e "node_modules/$name" ] || mv "node_modules/$name" "hidden/$name"; done
set +e
./node_modules/.bin/switchyard run program.ts --tools ./tools.ts 2>unavailable.err
code=$?
set -e
for name in isolated-vm isolated-vm-7; do [ ! -e "hidden/$name" ] || mv "hidden/$name" "node_modules/$name"; done
cat unavailable.err
[ "$code" = 2 ] || fail "without isolated-vm the command should exit 2, got $code"
[ "$(wc -l <unavailable.err)" = 1 ] || fail "without isolated-vm the command should print one line"
grep -q "No isolated-vm binary loads on Node $(node --version) (ABI" unavailable.err || fail "the line does not name the Node line"

step "CommonJS: require() the package (Node >= 20.19)"
mkdir -p cjs
cd cjs
cat >package.json <<'JSON'
{ "name": "consumer-cjs", "version": "1.0.0", "private": true, "type": "commonjs" }
JSON
cat >index.js <<'JS'
const { Switchyard, defineTool, ToolError, SwitchyardError } = require("switchyard-runtime");
const { createAnthropicAdapter } = require("switchyard-runtime/agent");
const { createGatewayServer } = require("switchyard-runtime/gateway");
const { startScriptedModelServer } = require("switchyard-runtime/testing");

async function main() {
  if (typeof createGatewayServer !== "function" || typeof startScriptedModelServer !== "function") {
    throw new Error("a subpath export is missing");
  }
  const flaky = defineTool({
    name: "api.fetch",
    description: "Rate limited.",
    inputSchema: { type: "object", properties: {} },
    effect: "read",
    execute: () => {
      throw new ToolError("slow down", { code: "RATE_LIMITED" });
    },
  });
  const yard = new Switchyard({ tools: [flaky] });
  const result = await yard.run("try { await tools.api.fetch({}); } catch (error) { return error.code; }");
  await yard.close();
  if (result.output !== "RATE_LIMITED") throw new Error(`unexpected: ${JSON.stringify(result)}`);
  try {
    createAnthropicAdapter({ model: "any" });
    throw new Error("the adapter was created without @anthropic-ai/sdk");
  } catch (error) {
    if (!SwitchyardError.isInstance(error) || error.code !== "OPTIONAL_DEPENDENCY_MISSING") throw error;
    if (!error.message.includes("npm install @anthropic-ai/sdk@")) throw new Error(`no install command: ${error.message}`);
    console.log(`cjs ok; without the SDK: ${error.message}`);
  }
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
JS
node --no-node-snapshot index.js
cd ..

frameworks="-"
if [ -n "${CONSUMER_FRAMEWORKS:-}" ]; then
  step "frameworks: $CONSUMER_FRAMEWORKS (their examples, typed and run against the installed majors)"
  # shellcheck disable=SC2086 # a list of package specs
  npm install --no-audit --no-fund --loglevel=error $CONSUMER_FRAMEWORKS zod@4 >/dev/null
  mkdir -p frameworks
  import_by_package_name "$repo/examples/support-desk/desk.ts" >frameworks/desk.ts
  examples=()
  for pair in "ai:ai-sdk" "@openai/agents:openai-agents"; do
    [ -e "node_modules/${pair%%:*}" ] || continue
    import_by_package_name -e "s|\"../../src/integrations/${pair#*:}.js\"|\"switchyard-runtime/${pair#*:}\"|" \
      "$repo/examples/${pair#*:}/support-desk.ts" >"frameworks/${pair#*:}.ts"
    examples+=("${pair#*:}")
  done
  type_check_folder frameworks
  cat >frameworks/expected.ts <<'TS'
import { expectedDeskAnswer } from "./desk.js";
console.log(`answer: ${expectedDeskAnswer()}`);
TS
  expected="$(node --import tsx frameworks/expected.ts)"
  for example in "${examples[@]}"; do
    node --no-node-snapshot --import tsx "frameworks/$example.ts" | tee "frameworks/$example.out"
    grep -qF "$expected" "frameworks/$example.out" || fail "the $example example did not print: $expected"
    grep -qE 'run \S+-p1: 14 tool calls' "frameworks/$example.out" || fail "the $example example made no 14-call run"
  done
  frameworks="$(node -e '
const { readFileSync } = require("node:fs");
const installed = require("./package.json").dependencies;
const version = (name) => JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8")).version;
console.log(process.argv.slice(1).filter((name) => installed[name]).map((name) => `${name}@${version(name)}`).join(" "));
' ai @openai/agents openai)"
fi

if [ -n "${CONSUMER_SUMMARY:-}" ]; then
  printf '%s\t%s\t%s s\t%s\t%s\t%s\t%s\n' "$(node --version)" "$(npm --version)" "$install_seconds" "$isolate" \
    "$quick_start" "ok" "$frameworks" >>"$CONSUMER_SUMMARY"
fi

# --- The README's quick start, followed literally (issue 29) -------------------------------------
# Its marked steps, in order, in a fresh folder beside the tarball: the commands as written, the
# files as written, and each command's output compared with the output the README shows (only
# the times, `<n> ms`, may differ). A README that drifts from the package fails here.
step "the README's quick start, followed literally in a fresh folder"
quick="$work/quick-start"
mkdir -p "$quick/steps"
(cd "$repo" && node --import tsx test/readme/readme-blocks.ts --quick-start "$quick/steps") >"$quick/steps.list"
cp "$tarball" "$quick/"
script="$quick/follow.sh"
printf 'set -euo pipefail\ncd %q\n' "$quick" >"$script"
pending=""
while read -r kind name; do
  case "$kind" in
    file) printf 'cp %q .\n' "$quick/steps/$name" >>"$script" ;;
    shell) pending="$quick/steps/$name"; printf '{ . %q; } >%q\n' "$pending" "$pending.out" >>"$script" ;;
    output) printf '%s %s\n' "$pending.out" "$quick/steps/$name" >>"$quick/compare.list" ;;
  esac
done <"$quick/steps.list"
bash "$script" || fail "a quick-start step failed (see $script)"
normalize() { sed -E 's/[0-9]+ ms/<n> ms/g' "$1"; }
while read -r actual expected; do
  if ! diff <(normalize "$expected") <(normalize "$actual"); then
    fail "the quick start printed something else than the README shows ($(basename "$expected"))"
  fi
done <"$quick/compare.list"
echo "quick start: $(grep -c . "$quick/compare.list") outputs as the README shows them"

step "passed"
