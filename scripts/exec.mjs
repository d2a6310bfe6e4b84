// Tiny process helpers shared by the build and test scripts, so every external command is echoed the
// same way and a failure names the command that failed instead of a bare exit code.
import { spawnSync } from "node:child_process";

/** Runs a command with inherited stdio; throws if it cannot start or exits non-zero. */
export function run(cmd, args, { cwd, env } = {}) {
  console.log(`$ ${[cmd, ...args].join(" ")}`);
  const r = spawnSync(cmd, args, { cwd, env, stdio: "inherit" });
  if (r.error) throw new Error(`could not start ${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited with ${r.status ?? r.signal}`);
}

/** Returns a command's trimmed stdout, or null if it is missing or fails (used for version probes). */
export function probe(cmd, args, { cwd } = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return r.status === 0 ? r.stdout.trim() : null;
}
