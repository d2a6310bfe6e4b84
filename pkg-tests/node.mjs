// Runs one Node consumer entry of the fixture (fixture/esm.mjs or fixture/cjs.cjs) in a child process,
// so the package is resolved from the fixture's node_modules exactly as in a user's project.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { fixture } from "./fixture.mjs";

export async function runNodeEntry(entry) {
  const { project, input } = fixture();
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [join(project, entry), input], {
      cwd: project,
      maxBuffer: 64 << 20,
      timeout: 120_000,
    });
    return JSON.parse(stdout);
  } catch (e) {
    throw new Error(`node ${entry} failed: ${e.message}\n${e.stderr ?? ""}`);
  }
}
