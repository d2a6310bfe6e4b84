// How src/counting/calibration.rs's constants were chosen: replays the scenarios of pkg-tests/bench/calibration.mjs
// ("first three": calibrated on a conversation's first three reports, every later request) on the TRAINING
// conversations only (k % 3 != 2 of each group; the held-out third is never read here) with a JavaScript copy
// of the rule, for a grid of DOWN_NOISE and MIN_SCALE_SPAN. The copy is checked against the built package
// (dist/, `npm run build`) at the shipped constants on every request of a sample, so it cannot drift from the
// Rust rule unnoticed. Run: node scripts/calibration-sweep.mjs
import { GROUPS, errorStats, exactPoints, pct, readGroup } from "./corpus-texts.mjs";

const { estimate } = await import("../dist/node.mjs");
const o200k = (await import("gpt-tokenizer/encoding/o200k_base")).countTokens;

/** The shipped constants (src/counting/calibration.rs). */
const SHIPPED = { downNoise: 1, minSpan: 30 };

/** src/counting/calibration.rs `scale`, in JavaScript: reports are [estimatedPrefix, promptTokens] pairs, oldest first. */
function scale(reports, { downNoise, minSpan }) {
  const correction = (reported, estimated) => {
    if (estimated < minSpan) return null;
    const d = reported / estimated - 1;
    return d >= 0 ? d : Math.min(0, d + downNoise / Math.sqrt(estimated));
  };
  const [e0, r0] = reports[0];
  const [e1, r1] = reports.at(-1);
  const request = correction(r1, e1);
  const growth = reports.length < 2 ? null : r1 < r0 ? 0 : correction(r1 - r0, e1 - e0);
  let moved = 0;
  if (request !== null && growth === null) moved = request;
  else if (request !== null && request * growth > 0) moved = Math.abs(request) < Math.abs(growth) ? request : growth;
  return Math.min(2, Math.max(0.5, 1 + moved));
}

const train = (k) => k % 3 !== 2;
const labelled = readGroup("mini-swe-agent-text").map((c, k) => ({ k, messages: c.messages, points: c.labels?.gemini_prompt_tokens ?? [] })).filter((c) => train(c.k));
const corpus = GROUPS.flatMap((group) => readGroup(group).map((c, k) => ({ k, messages: c.messages }))).filter((c) => train(c.k));
for (const c of corpus) c.exact = exactPoints(c.messages, o200k);
const scenarios = [
  ["Gemini's counts, gemini profile (right)", "gemini", labelled.map((c) => ({ ...c }))],
  ["Gemini's counts, o200k profile (wrong)", "o200k", labelled.map((c) => ({ ...c }))],
  ...[[1, 0], [0.8, 0], [1.25, 0], [1, 1500]].map(([factor, fixed]) => [
    `o200k ×${factor}${fixed ? ` + ${fixed} not described` : ""}, o200k profile`, "o200k",
    corpus.map((c) => ({ ...c, points: c.exact.map(([n, t]) => [n, Math.round(t * factor) + fixed]) })),
  ]),
];

// Each conversation's cumulative estimate under the scenario's profile, once.
for (const [, tokenizer, convs] of scenarios) {
  for (const c of convs) {
    const e = estimate(c.messages, { tokenizer });
    c.cumulative = [e.requestOverhead];
    for (const t of e.perMessage) c.cumulative.push(c.cumulative.at(-1) + t);
  }
}

/** "first three" errors of the JS rule with `constants`. */
function replay(convs, constants) {
  const errors = [];
  for (const c of convs.filter((c) => c.points.length > 3)) {
    const reports = c.points.slice(0, 3).map(([n, tokens]) => [c.cumulative[n], tokens]);
    const s = scale(reports, constants);
    const [e3, r3] = reports[2];
    for (const [n, tokens] of c.points.slice(3)) errors.push((r3 + Math.ceil((c.cumulative[n] - e3) * s) - tokens) / tokens);
  }
  return errors;
}

// The copy against the package, at the shipped constants: every request of every tenth conversation.
let checked = 0, differ = 0;
for (const [, tokenizer, convs] of scenarios) {
  for (const c of convs.filter((c, i) => i % 10 === 0 && c.points.length > 3)) {
    const usage = c.points.slice(0, 3).map(([n, tokens]) => ({ promptTokens: tokens, messageCount: n }));
    const reports = c.points.slice(0, 3).map(([n, tokens]) => [c.cumulative[n], tokens]);
    const s = scale(reports, SHIPPED);
    for (const [n] of c.points.slice(3)) {
      const pkg = estimate(c.messages.slice(0, n), { tokenizer, usage }).total;
      checked++;
      if (pkg !== reports[2][1] + Math.ceil((c.cumulative[n] - reports[2][0]) * s)) differ++;
    }
  }
}
console.log(`the JavaScript copy against the package at the shipped constants: ${differ} of ${checked} totals differ`);
if (differ) process.exitCode = 1;

console.log("\ntraining conversations, calibrated on the first three reports: |error| median / p90 / under by >5% / over by >5%");
scenarios.forEach(([name], i) => console.log(`  (${i + 1}) ${name}`));
console.log(`  ${"DOWN_NOISE, MIN_SCALE_SPAN".padEnd(28)} ${scenarios.map((_, i) => `(${i + 1})`.padEnd(27)).join(" ")}`);
for (const minSpan of [30, 100]) {
  for (const downNoise of [0, 0.5, 1, 1.5, 2]) {
    const cells = scenarios.map(([, , convs]) => {
      const errs = replay(convs, { downNoise, minSpan });
      const s = errorStats(errs);
      return `${pct(s.median)}/${pct(s.p90)}/${pct(s.under5)}/${pct(errs.filter((e) => e > 0.05).length / errs.length)}`.padEnd(27);
    });
    const mark = downNoise === SHIPPED.downNoise && minSpan === SHIPPED.minSpan ? " (shipped)" : "";
    console.log(`  ${`${downNoise}, ${minSpan}${mark}`.padEnd(28)} ${cells.join(" ")}`);
  }
}
