// Every format through the installed package (Node ESM): see fixture/formats.mjs for what is asserted.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { fixture } from "./fixture.mjs";

const examples = fileURLToPath(new URL("./formats/", import.meta.url));

for (const file of readdirSync(examples).filter((f) => f.endsWith(".json")).sort()) {
  const format = file.replace(/\.json$/, "");
  test(`${format}: identity, body shape, prune, compaction, validate and repair in the packed package`, () => {
    const { project } = fixture();
    const r = spawnSync(process.execPath, [join(project, "formats.mjs"), join(examples, file), format], { cwd: project, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr || r.stdout);
    assert.equal(r.stdout.trim(), `ok ${format}`);
  });
}
