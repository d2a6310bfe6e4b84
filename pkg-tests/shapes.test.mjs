// Text that is not prose (base64, hexadecimal, long numbers, runs of one character, progress bars, box
// drawing, minified JSON and JavaScript), through the installed package: its estimate stays within 10% of the
// exact o200k, cl100k and claude counts, where read as prose it was up to 100% low, box drawing four times high,
// bit strings twice high and minified code 12% high for claude. The shapes and the exact counts are the
// benchmark's (bench/shapes.mjs, `exactCounters`): every one of them is asserted.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { exactCounters } from "../scripts/corpus-texts.mjs";
import { shapes } from "./bench/shapes.mjs";
import { fixture } from "./fixture.mjs";

const EXACT = await exactCounters();

test("base64, hexadecimal, long numbers, runs of one character, progress bars, box drawing and minified code are estimated within 10% of the exact count", async () => {
  const { project } = fixture();
  const { estimate } = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
  const texts = shapes();
  for (const name of Object.keys(texts)) {
    for (const [tokenizer, count] of Object.entries(EXACT)) {
      const own = estimate([{ role: "user", content: texts[name] }], { tokenizer }).total - estimate([{ role: "user", content: "" }], { tokenizer }).total;
      const exact = count(texts[name]);
      assert.ok(Math.abs(own / exact - 1) <= 0.1, `${name}, ${tokenizer}: ${own} estimated, ${exact} exact`);
    }
  }
});
