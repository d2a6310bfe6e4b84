// scripts/calibrated-total.mjs writes the package's calibration (src/counting/calibration.rs) again in JavaScript,
// for the profile fit, which scores candidate tables before any wasm holds them. Here the two must agree
// on every request the corpus has a reported count for, with the right profile and a wrong one.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { calibratedTotal } from "../scripts/calibrated-total.mjs";
import { readGroup } from "../scripts/corpus-texts.mjs";
import { fixture } from "./fixture.mjs";

const { project } = fixture();
const { estimate } = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);

test("the fit's calibration mirror gives the package's calibrated total on every reported request", () => {
  let requests = 0;
  for (const tokenizer of ["gemini", "o200k"]) {
    for (const c of readGroup("mini-swe-agent-text")) {
      const points = c.labels?.gemini_prompt_tokens ?? [];
      if (points.length <= 3) continue;
      const whole = estimate(c.messages, { tokenizer });
      const reports = points.slice(0, 3);
      const usage = reports.map(([messageCount, promptTokens]) => ({ promptTokens, messageCount }));
      for (const [n] of points.slice(3)) {
        const { total, calibration } = estimate(c.messages.slice(0, n), { tokenizer, usage });
        assert.equal(calibratedTotal(whole.perMessage, whole.requestOverhead, reports, n), total, `${tokenizer} ${c.id} at ${n} messages (scale ${calibration.scale})`);
        requests++;
      }
    }
  }
  assert.ok(requests > 8000, `${requests} requests`);
});
