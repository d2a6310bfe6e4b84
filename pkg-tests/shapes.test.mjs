// Text that is not prose (base64, hexadecimal, long numbers, runs of one character, progress bars, box
// drawing), through the installed package: its estimate stays within 10% of the exact o200k, cl100k and claude
// counts, where read as prose it was up to 100% low, box drawing four times high and bit strings twice high
// for claude. The shapes and the exact counts are the benchmark's (bench/shapes.mjs, `exactCounters`); minified
// JSON and JavaScript, which the README gives as outside 10% for some tokenizers, are measured there, not
// asserted here.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { exactCounters } from "../scripts/corpus-texts.mjs";
import { shapes } from "./bench/shapes.mjs";
import { fixture } from "./fixture.mjs";

const EXACT = await exactCounters();
const MODELLED = [
  "base64 (one line)", "base64 (76-column lines)", "data URL in JSON", "hex blob", "UUIDs, one per line",
  "100 000 × y", "5 000 dashes", "3 000 × =", "4 000 spaces", "progress bar (\\r)", "box drawing", "bit strings",
  "19-digit ids, one per line",
];

test("base64, hexadecimal, long numbers, runs of one character, progress bars and box drawing are estimated within 10% of the exact count", async () => {
  const { project } = fixture();
  const { estimate } = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
  const texts = shapes();
  for (const name of MODELLED) {
    for (const [tokenizer, count] of Object.entries(EXACT)) {
      const own = estimate([{ role: "user", content: texts[name] }], { tokenizer }).total - estimate([{ role: "user", content: "" }], { tokenizer }).total;
      const exact = count(texts[name]);
      assert.ok(Math.abs(own / exact - 1) <= 0.1, `${name}, ${tokenizer}: ${own} estimated, ${exact} exact`);
    }
  }
});
