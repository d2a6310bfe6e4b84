// Resource limits: the WebAssembly memory a large history needs stays within the multiple of its size
// that input.rs documents (a Worker isolate has 128 MB). Linear memory grows deterministically for the
// same input, so this is a bound on bytes, not a timing.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { fixture } from "./fixture.mjs";

const corpus = fileURLToPath(new URL("./corpus/mini-swe-agent-tools.jsonl.gz", import.meta.url));
const MAX_GROWTH = 7; // × the input's JSON characters; see MAX_INPUT_CHARS in src/reading/input.rs

test(`memory grows by at most ${MAX_GROWTH}× the input on a 7 MB agent history`, () => {
  const { project } = fixture();
  const r = spawnSync(process.execPath, [join(project, "memory.mjs"), corpus, "7"], { cwd: project, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const { inputChars, before, after } = JSON.parse(r.stdout);
  assert.ok(inputChars > 6e6, `input ${inputChars} chars`);
  const growth = (after - before) / inputChars;
  assert.ok(growth <= MAX_GROWTH, `grew ${(after - before) / 1e6} MB for ${inputChars / 1e6} M chars: ${growth.toFixed(2)}×`);
});
