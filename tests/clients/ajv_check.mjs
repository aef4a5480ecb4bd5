// Compiles every tool's outputSchema the way the MCP Inspector does: `new Ajv()` with Ajv's
// default options (strict mode: unknown keywords and formats are errors, union types and
// keywords without their type are warnings), Ajv 8 as in the Inspector 1.x/2.x, and Ajv 6 as
// in its 0.x line. Any error or warning fails the tool. This is the independent oracle for the
// rules tests/output_schemas.rs applies in `cargo test`.
//
//   node ajv_check.mjs LISTING.json...     # each a tools/list result (minimcp call tools/list --json)
//
// Run from a directory where `ajv` is Ajv 8.17.1 and `ajv6` is Ajv 6.12.6 (tests/clients/run.sh
// installs both). Prints PASS/FAIL per tool and "ajv: N passed, M failed"; exits 1 on a failure.
import { readFileSync } from "node:fs";
import Ajv from "ajv";
import Ajv6 from "ajv6";

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  const listing = JSON.parse(readFileSync(file, "utf8"));
  for (const tool of listing.tools) {
    if (!tool.outputSchema) continue;
    const problems = [];
    for (const [name, Validator] of [["Ajv 8", Ajv], ["Ajv 6", Ajv6]]) {
      const say = (...args) => problems.push(`${name}: ${args.map(String).join(" ")}`);
      try {
        new Validator({ logger: { log() {}, warn: say, error: say } }).compile(tool.outputSchema);
      } catch (error) {
        say(`does not compile: ${error.message}`);
      }
    }
    if (problems.length === 0) {
      passed += 1;
      console.log(`PASS ${tool.name}`);
    } else {
      failed += 1;
      console.log(`FAIL ${tool.name}\n  ${problems.join("\n  ")}`);
    }
  }
}
console.log(`ajv: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
