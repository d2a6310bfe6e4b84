// The package in Node through `import` (export conditions "node" + "import" → dist/node.mjs).
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkRuntime } from "./checks.mjs";
import { runNodeEntry } from "./node.mjs";

let entry;
checkRuntime("Node ESM: import { … } from \"ctxfold\"", async () => {
  const report = await runNodeEntry("esm.mjs");
  entry = report.entry;
  return report;
});

test("Node ESM resolved \"ctxfold\" to dist/node.mjs", () => {
  assert.match(entry ?? "", /\/node_modules\/ctxfold\/dist\/node\.mjs$/);
});
