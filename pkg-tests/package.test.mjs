// What `npm pack` put in the tarball: every entry the exports map names, and nothing from the work tree.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fixture } from "./fixture.mjs";

test("the tarball holds the dist/ entry points and only what users need", () => {
  const packed = JSON.parse(readFileSync(join(fixture().scratch, "packed.json"), "utf8"));
  const files = packed.files.map((f) => f.path);
  for (const needed of [
    "package.json", "dist/ctxfold.d.ts", "dist/workerd.js", "dist/node.mjs", "dist/node/package.json",
    "dist/node/ctxfold.js", "dist/node/ctxfold_bg.wasm", "dist/web/ctxfold.js", "dist/web/ctxfold_bg.wasm", "dist/browser.js",
  ]) assert.ok(files.includes(needed), `${needed} is in the tarball`);
  const unexpected = files.filter((f) => !f.startsWith("dist/") && !/^(package\.json|README\.md|LICENSE[^/]*)$/.test(f));
  assert.deepEqual(unexpected, [], "nothing but dist/, package.json, README and licence");
});
