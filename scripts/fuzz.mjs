// `npm run fuzz [-- --seconds N]`: coverage-guided fuzzing of the core with cargo fuzz (libFuzzer), for a
// bounded time (60 s by default; `npm test` runs it for that long). Seeds come from the documented
// examples in pkg-tests/formats; libFuzzer's corpus and any crash go to target/fuzz/. Prints the
// executions and the findings, and fails on any finding: each crash becomes a regression test.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import { probe, run } from "./exec.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
// The last `--seconds` given counts: `npm run fuzz -- --seconds N` comes after the script's own 600.
const secondsAt = process.argv.lastIndexOf("--seconds");
const seconds = (secondsAt >= 0 && Number(process.argv[secondsAt + 1])) || 60;
const fuzzDir = join(root, "scripts", "fuzz");
const work = join(root, "target", "fuzz");
const corpus = join(work, "corpus");
const artifacts = join(work, "artifacts");

// cargo fuzz drives rustc with a few unstable flags (sanitizer coverage); RUSTC_BOOTSTRAP lets the
// stable toolchain, the only one this project may assume, accept them.
const env = { ...process.env, RUSTC_BOOTSTRAP: "1" };

if (probe("cargo", ["fuzz", "--version"]) === null) run("cargo", ["install", "cargo-fuzz", "--version", "^0.13"]);

// Seeds: each documented example as messages, then 0x01 and a few options.
mkdirSync(corpus, { recursive: true });
mkdirSync(artifacts, { recursive: true });
const examples = join(root, "pkg-tests", "formats");
for (const file of readdirSync(examples).filter((f) => f.endsWith(".json"))) {
  const messages = readFileSync(join(examples, file), "utf8");
  writeFileSync(join(corpus, `seed-${file}`), Buffer.concat([Buffer.from([0]), Buffer.from(`${messages}\u0001{"protectTokens":0,"minimumPruneTokens":0,"keepRecentTurns":1}\u0001"a summary"`)]));
}

const before = new Set(existsSync(artifacts) ? readdirSync(artifacts) : []);
// libFuzzer reports on stderr, megabytes of it on a long run: to a file, not a buffer (a buffer would
// fill and stop the run).
const logFile = join(work, "fuzz.log");
const logFd = openSync(logFile, "w");
const r = spawnSync("cargo", [
  "fuzz", "run", "--fuzz-dir", fuzzDir, "--target-dir", join(work, "build"), "operations", corpus, "--",
  `-max_total_time=${seconds}`, "-max_len=65536", "-timeout=20", "-rss_limit_mb=4096", `-artifact_prefix=${artifacts}/`, "-print_final_stats=1",
], { cwd: root, env, stdio: ["ignore", "inherit", logFd] });
closeSync(logFd);
const log = readFileSync(logFile, "utf8");
const runs = log.match(/stat::number_of_executed_units:\s*(\d+)/)?.[1];
const found = readdirSync(artifacts).filter((f) => !before.has(f));
console.log(`fuzz: ${runs ?? "?"} executions in ${seconds} s, ${readdirSync(corpus).length} inputs in the corpus, ${found.length} findings`);
if (r.status !== 0 || found.length > 0) {
  console.error(log.split("\n").slice(-40).join("\n"));
  console.error(`the whole log: ${logFile}`);
  for (const f of found) console.error(`finding: ${join(artifacts, f)} (reproduce: cargo fuzz run --fuzz-dir scripts/fuzz operations ${join(artifacts, f)})`);
  process.exit(1);
}
