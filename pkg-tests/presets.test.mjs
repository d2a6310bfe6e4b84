// The presets through the installed package (Node ESM): see fixture/presets.mjs for what is asserted.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { fixture } from "./fixture.mjs";

test("every preset plans, applies and keeps its documented shape in the packed package", () => {
  const { project } = fixture();
  const r = spawnSync(process.execPath, [join(project, "presets.mjs")], { cwd: project, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr || r.stdout);
  assert.equal(r.stdout.trim().split("\n").length, 11, r.stdout);
});
