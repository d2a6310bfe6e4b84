// `npm test`'s last step: tests the built package (dist/, see scripts/build.mjs) in real runtimes.
// Packs and installs it once into a scratch fixture, then runs every *.test.mjs here under node's test
// runner, which prints the standard pass/fail summary. The scratch directory is removed afterwards
// unless CTXFOLD_KEEP_FIXTURE=1 (to poke at a failure).
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareFixture } from "./fixture.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const started = Date.now();
const scratch = prepareFixture();
console.log(`package packed and installed in ${scratch} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

const files = readdirSync(here).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => join(here, f));
const result = spawnSync(process.execPath, ["--test", ...files], {
  stdio: "inherit",
  env: { ...process.env, CTXFOLD_FIXTURE: scratch },
});

if (process.env.CTXFOLD_KEEP_FIXTURE === "1") console.log(`fixture kept in ${scratch}`);
else rmSync(scratch, { recursive: true, force: true });
process.exit(result.status ?? 1);
