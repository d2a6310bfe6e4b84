// cache_breakpoints, assemble_turn and Session through the installed package (Node ESM): see fixture/session.mjs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { fixture } from "./fixture.mjs";

test("cache breakpoints, turn assembly and a session in the packed package", () => {
  const { project } = fixture();
  const r = spawnSync(process.execPath, [join(project, "session.mjs")], { cwd: project, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr || r.stdout);
  assert.equal(r.stdout.trim(), "ok");
});
