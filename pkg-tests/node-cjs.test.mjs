// The package in Node through `require` (export conditions "node" + "require" → dist/node/ctxfold.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkRuntime } from "./checks.mjs";
import { runNodeEntry } from "./node.mjs";

let entry;
checkRuntime("Node CommonJS: require(\"ctxfold\")", async () => {
  const report = await runNodeEntry("cjs.cjs");
  entry = report.entry;
  return report;
});

test("Node CommonJS resolved \"ctxfold\" to dist/node/ctxfold.js", () => {
  assert.match(entry ?? "", /\/node_modules\/ctxfold\/dist\/node\/ctxfold\.js$/);
});
