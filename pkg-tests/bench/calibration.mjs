// `npm run bench`: how calibration from reported usage corrects the estimate, through the built package
// (dist/). Prints numbers; asserts nothing. Each scenario replays conversations of the corpus
// (pkg-tests/corpus) request by request, with a provider count for each request, and measures the error of
// `estimate(messages, { tokenizer, usage })` against that count:
// - "first three": calibrated on the first three reports of the conversation, every later request (a host
//   that stops passing reports, or the worst case of a long gap between them);
// - "every turn": each request with the reports of all the earlier ones (what a `Session` does: the oldest
//   and the latest count);
// - "uncalibrated": no report.
// The provider counts are Gemini's real ones (mini-swe-agent-text labels), or made from exact o200k/cl100k
// counts (the benchmark's cookbook convention) times a factor, plus tokens the host did not describe: a
// profile known to be off by that much. Lines are given for the training conversations (k % 3 != 2 of
// each group, on which src/counting/calibration.rs's constants were chosen) and the held-out third.
//
// CTXFOLD_DIST=/path/to/dist runs another build (for example main's) for a before/after comparison;
// `--train` prints the training lines only (for choosing constants without looking at the held-out third).
import { pathToFileURL } from "node:url";
import { GROUPS, errorStats, exactPoints, pct, readGroup } from "../../scripts/corpus-texts.mjs";

const dist = process.env.CTXFOLD_DIST ? pathToFileURL(`${process.env.CTXFOLD_DIST}/`).href : new URL("../../dist/", import.meta.url).href;
const { estimate } = await import(`${dist}node.mjs`);
const o200k = (await import("gpt-tokenizer/encoding/o200k_base")).countTokens;
const cl100k = (await import("gpt-tokenizer/encoding/cl100k_base")).countTokens;

/** Errors of each way of estimating, over the requests of `conversations` (`{ k, messages, points }`). */
function replay(conversations, tokenizer) {
  const errs = { "first three": [], "every turn": [], uncalibrated: [] };
  for (const { messages, points } of conversations) {
    const reports = points.map(([n, tokens]) => ({ promptTokens: tokens, messageCount: n }));
    points.forEach(([n, tokens], i) => {
      const msgs = messages.slice(0, n);
      const err = (usage) => (estimate(msgs, { tokenizer, usage }).total - tokens) / tokens;
      if (i >= 3) {
        errs["first three"].push(err(reports.slice(0, 3)));
        errs.uncalibrated.push(err(undefined));
      }
      if (i >= 1) errs["every turn"].push(err(reports.slice(0, i)));
    });
  }
  return errs;
}

const cell = (errs) => {
  const s = errorStats(errs);
  const over = errs.filter((e) => e > 0.05).length / errs.length;
  return `${pct(s.median)} / ${pct(s.p90)} / ${pct(s.under5)} / ${pct(over)}`.padEnd(30);
};

const labelled = readGroup("mini-swe-agent-text").map((c, k) => ({ k, messages: c.messages, points: c.labels?.gemini_prompt_tokens ?? [] }));
const corpus = GROUPS.flatMap((group) => readGroup(group).map((c, k) => ({ group, k, messages: c.messages })));
const scenarios = [
  ["Gemini's counts, gemini profile (right)", "gemini", () => labelled],
  ["Gemini's counts, o200k profile (wrong)", "o200k", () => labelled],
  ["Gemini's counts, claude profile", "claude", () => labelled],
];
for (const [name, count, factor, fixed] of [
  ["o200k ×1 (right)", o200k, 1, 0],
  ["o200k ×0.8", o200k, 0.8, 0],
  ["o200k ×1.25", o200k, 1.25, 0],
  ["o200k + 1 500 not described", o200k, 1, 1500],
  ["o200k ×1.25 + 1 500 not described", o200k, 1.25, 1500],
  ["cl100k", cl100k, 1, 0],
]) {
  scenarios.push([`${name}, o200k profile`, "o200k", () => corpus.map((c) => ({ ...c, points: exactPoints(c.messages, count, factor, fixed) }))]);
}

console.log("calibration from reported usage: |error| median / p90, share of requests under-estimated by >5% / over by >5%");
console.log(`  ${"provider counts, profile".padEnd(50)} ${"part".padEnd(8)} ${"first three".padEnd(30)} ${"every turn".padEnd(30)} ${"uncalibrated".padEnd(30)}`);
for (const [name, tokenizer, conversations] of scenarios) {
  const all = conversations().filter((c) => c.points.length > 3);
  const parts = [["train", (k) => k % 3 !== 2], ["held-out", (k) => k % 3 === 2]].slice(0, process.argv.includes("--train") ? 1 : 2);
  for (const [part, keep] of parts) {
    const errs = replay(all.filter((c) => keep(c.k)), tokenizer);
    console.log(`  ${name.padEnd(50)} ${part.padEnd(8)} ${Object.values(errs).map(cell).join(" ")}`);
  }
}
