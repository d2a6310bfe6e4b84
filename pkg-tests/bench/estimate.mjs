// `npm run bench`: ctxfold's estimate beside the exact JavaScript tokenizers and the usual heuristics, in
// one process, on the same corpus (pkg-tests/corpus). Prints numbers; asserts nothing (benchmarks never
// fail on time). Uses the built package (dist/, `npm run build`) through its Node entry, so the JS ⇄ wasm
// boundary (reading the caller's message arrays) is inside every ctxfold measurement.
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import { GROUPS, contentText, errorStats, exactCounters, messageTexts, pct, readGroup, truthCount } from "../../scripts/corpus-texts.mjs";

const { estimate } = await import("../../dist/node.mjs");

const corpus = GROUPS.map((group) => ({ group, conversations: readGroup(group) }));
const all = corpus.flatMap((g) => g.conversations);
const texts = all.flatMap((c) => c.messages.flatMap(messageTexts));
const megabytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0) / 1e6;
const clone = (v) => JSON.parse(JSON.stringify(v));

console.log(`ctxfold estimate benchmark — ${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}`);
console.log(`corpus: ${all.length} conversations, ${texts.length} texts, ${megabytes.toFixed(1)} MB of text\n`);

/** Best of `rounds` timed runs of `fn` (ms); `prepare` runs untimed before each. */
function time(fn, { rounds = 3, prepare = () => undefined } = {}) {
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const input = prepare();
    const t0 = performance.now();
    fn(input);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

// ---- exact tokenizers (o200k_base) and heuristics, over the same texts ----
const exact = {};
{
  const gpt = await import("gpt-tokenizer/encoding/o200k_base");
  exact["gpt-tokenizer"] = (t) => gpt.countTokens(t);
}
try {
  const { Tokenizer } = await import("ai-tokenizer");
  const enc = await import("ai-tokenizer/encoding/o200k_base");
  const tok = new Tokenizer(enc);
  exact["ai-tokenizer"] = (t) => tok.count(t);
} catch (e) {
  console.log(`ai-tokenizer: not run (${e.message})`);
}
try {
  const { get_encoding } = await import("tiktoken");
  const enc = get_encoding("o200k_base"); // the npm package bundles its encodings: works offline
  exact["tiktoken (wasm)"] = (t) => enc.encode_ordinary(t).length;
} catch (e) {
  console.log(`tiktoken: not run (${e.message})`);
}
try {
  const { Tiktoken } = await import("js-tiktoken/lite");
  const ranks = (await import("js-tiktoken/ranks/o200k_base")).default;
  const enc = new Tiktoken(ranks);
  exact["js-tiktoken"] = (t) => enc.encode(t).length;
} catch (e) {
  console.log(`js-tiktoken: not run (${e.message})`);
}

const isCjk = (cp) => (cp >= 0x2e80 && cp <= 0x9fff) || (cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xff00 && cp <= 0xffef) || (cp >= 0x20000 && cp <= 0x3134f);
const heuristics = {
  "chars/4": (t) => Math.ceil(t.length / 4),
  "OpenCode (CJK×1.5 + other/4)": (t) => {
    let cjk = 0, other = 0;
    for (const ch of t) isCjk(ch.codePointAt(0)) ? cjk++ : other++;
    return Math.ceil(cjk * 1.5 + other / 4);
  },
  "Gemini CLI (ASCII×0.25 + non-ASCII×1.5)": (t) => {
    let ascii = 0, other = 0;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c < 128) ascii++;
      else if (c < 0xdc00 || c > 0xdfff) other++; // a surrogate pair is one character
    }
    return Math.ceil(ascii * 0.25 + other * 1.5);
  },
};

// ---- throughput ----
const rows = [];
// gpt-tokenizer and ai-tokenizer keep a cache of the pieces they have encoded: their first pass is a fresh
// instance's, a second pass over the same texts a long-lived one's (warm).
const cached = ["gpt-tokenizer", "ai-tokenizer"];
for (const [name, count] of Object.entries({ ...exact, ...heuristics })) {
  const ms = time(() => { let n = 0; for (const t of texts) n += count(t); return n; }, { rounds: name in exact ? 1 : 3 });
  rows.push({ name: cached.includes(name) ? `${name}, fresh instance` : name, ms, exact: name in exact });
}
for (const name of cached.filter((n) => n in exact)) {
  const ms = time(() => { let n = 0; for (const t of texts) n += exact[name](t); return n; }, { rounds: 1 });
  rows.push({ name: `${name}, warm (a second pass)`, ms, exact: true });
}
// The heuristics as a host applies them: walking the same fresh message arrays for their texts (content,
// name, tool-call names and arguments), which the rows above leave out. This, not the texts alone, is what
// ctxfold's estimate below is doing the same job as.
for (const [name, count] of Object.entries(heuristics)) {
  const ms = time((convs) => { let n = 0; for (const c of convs) for (const m of c) for (const t of messageTexts(m)) n += count(t); return n; }, { prepare: () => all.map((c) => clone(c.messages)) });
  rows.push({ name: `${name.split(" (")[0]}, from the message arrays`, ms });
}
// ctxfold: the JS message arrays, boundary included (JSON.stringify, the copy into WebAssembly, reading),
// the whole conversation per call.
const coldMs = time((convs) => { for (const c of convs) estimate(c); }, { prepare: () => all.map((c) => clone(c.messages)) });
rows.push({ name: "ctxfold estimate (JS message arrays)", ms: coldMs });
// The same conversations as JSON text, as a Worker receives a request body: no arrays to read at all.
const bodies = all.map((c) => JSON.stringify(c.messages));
const textMs = time((texts) => { for (const t of texts) estimate(t); }, { prepare: () => bodies });
rows.push({ name: "ctxfold estimate (JSON text)", ms: textMs });
const bytes = bodies.map((t) => new TextEncoder().encode(t));
const bytesMs = time((list) => { for (const b of list) estimate(b); }, { prepare: () => bytes });
rows.push({ name: "ctxfold estimate (UTF-8 bytes)", ms: bytesMs });
// Not an estimator: what any reader that takes the arrays as JSON pays before reading a byte, for scale.
const stringifyMs = time((convs) => { for (const c of convs) JSON.stringify(c); }, { prepare: () => all.map((c) => clone(c.messages)) });
rows.push({ name: "(JSON.stringify of the same fresh arrays)", ms: stringifyMs });

const fastestExact = Math.min(...rows.filter((r) => r.exact).map((r) => r.ms));
console.log("throughput on the whole corpus (o200k), best of 3 (exact tokenizers: 1 run)");
console.log(`  ${"".padEnd(44)} ${"ms".padStart(8)} ${"MB/s".padStart(8)}  × fastest exact`);
for (const r of rows) {
  console.log(`  ${r.name.padEnd(44)} ${r.ms.toFixed(0).padStart(8)} ${(megabytes / (r.ms / 1000)).toFixed(1).padStart(8)}  ${(fastestExact / r.ms).toFixed(1).padStart(6)}×`);
}

// ---- accuracy per group and profile, against the cookbook count ----
const truthTokenizers = await exactCounters();
console.log("\naccuracy: |error| median / p90, share of conversations under-estimated by >5% (targets: 3% / 8% / 5%)");
console.log("held-out: every third conversation of each group (k % 3 == 2), which scripts/fit-profiles.mjs never fits on; train: the rest");
console.log(`  ${"group".padEnd(31)} ${Object.keys(truthTokenizers).map((p) => p.padEnd(24)).join(" ")} ${"chars/4 (o200k)".padEnd(24)}`);
const cell = (errs) => {
  const s = errorStats(errs);
  return `${pct(s.median)} / ${pct(s.p90)} / ${pct(s.under5)}`.padEnd(24);
};
// After the groups, text of a kind none of them holds, which the fit never sees (pkg-tests/corpus/prose-en):
// formal English prose, ten State of the Union addresses pasted whole.
const UNFITTED = "prose-en";
for (const { group, conversations } of [...corpus, { group: UNFITTED, conversations: readGroup(UNFITTED) }]) {
  const errors = {};
  const o200kTruth = [];
  for (const [profile, count] of Object.entries(truthTokenizers)) {
    errors[profile] = conversations.map((c) => {
      const truth = truthCount(c.messages, count);
      if (profile === "o200k") o200kTruth.push(truth);
      return (estimate(c.messages, { tokenizer: profile }).total - truth) / truth;
    });
  }
  errors["chars/4"] = conversations.map((c, k) => {
    const est = 3 + c.messages.reduce((n, m) => n + 4 + messageTexts(m).reduce((t, x) => t + heuristics["chars/4"](x), 0), 0);
    return (est - o200kTruth[k]) / o200kTruth[k];
  });
  const parts = group === UNFITTED ? [["all", () => true]] : [["held-out", (k) => k % 3 === 2], ["train", (k) => k % 3 !== 2]];
  for (const [part, keep] of parts) {
    const cells = Object.values(errors).map((errs) => cell(errs.filter((_, k) => keep(k))));
    console.log(`  ${group.padEnd(22)} ${part.padEnd(8)} ${cells.join(" ")}`);
  }
}

// ---- text that is not prose: generated shapes (shapes.mjs), one text each ----
{
  const { shapes } = await import("./shapes.mjs");
  const texts = shapes();
  // The text's own tokens: the estimate of a message holding it, less that of an empty one.
  const own = (text, tokenizer) => estimate([{ role: "user", content: text }], { tokenizer }).total - estimate([{ role: "user", content: "" }], { tokenizer }).total;
  console.log("\ntext that is not prose: error of the text's estimate against its exact count (target: within 10%, never more than 10% under)");
  console.log(`  ${"shape".padEnd(28)} ${"chars".padStart(7)} ${Object.keys(truthTokenizers).map((p) => `${p} exact`.padStart(13) + "  error".padStart(8)).join(" ")}  ${"chars/4 (o200k)".padStart(15)}`);
  const met = Object.fromEntries(Object.keys(truthTokenizers).map((p) => [p, 0]));
  for (const [name, text] of Object.entries(texts)) {
    const cells = Object.entries(truthTokenizers).map(([p, count]) => {
      const truth = count(text);
      const error = own(text, p) / truth - 1;
      if (Math.abs(error) <= 0.1) met[p]++;
      return String(truth).padStart(13) + pct(error).padStart(8);
    });
    const quarter = pct(Math.ceil(text.length / 4) / truthTokenizers.o200k(text) - 1);
    console.log(`  ${name.padEnd(28)} ${String(text.length).padStart(7)} ${cells.join(" ")}  ${quarter.padStart(15)}`);
  }
  console.log(`  within 10%: ${Object.entries(met).map(([p, n]) => `${p} ${n} of ${Object.keys(texts).length}`).join(", ")}`);
}

// ---- Gemini: against the usage Gemini reported (mini-swe-agent-text labels) ----
{
  const labelled = corpus.find((g) => g.group === "mini-swe-agent-text").conversations.filter((c) => c.labels?.gemini_prompt_tokens?.length > 3);
  const uncal = [], cal = [], chars = [], wrong = [], wrongCal = [];
  for (const c of labelled) {
    const points = c.labels.gemini_prompt_tokens;
    const reports = points.slice(0, 3).map(([n, tokens]) => ({ promptTokens: tokens, messageCount: n }));
    for (const [n, tokens] of points.slice(3)) {
      const msgs = c.messages.slice(0, n);
      uncal.push((estimate(msgs, { tokenizer: "gemini" }).total - tokens) / tokens);
      cal.push((estimate(msgs, { tokenizer: "gemini", usage: reports }).total - tokens) / tokens);
      // How much calibration corrects a profile made for another tokenizer (as claude's is for newer models).
      wrong.push((estimate(msgs, { tokenizer: "o200k" }).total - tokens) / tokens);
      wrongCal.push((estimate(msgs, { tokenizer: "o200k", usage: reports }).total - tokens) / tokens);
      chars.push((msgs.reduce((s, m) => s + contentText(m).length, 0) / 4 - tokens) / tokens);
    }
  }
  console.log(`\ngemini, against reported prompt tokens (${cal.length} requests after the first three of ${labelled.length} conversations):`);
  const rows = [
    ["calibrated on the first three reports", cal],
    ["gemini profile, uncalibrated", uncal],
    ["o200k profile (wrong), calibrated", wrongCal],
    ["o200k profile (wrong), uncalibrated", wrong],
    ["chars/4", chars],
  ];
  for (const [name, errs] of rows) {
    const s = errorStats(errs);
    console.log(`  ${name.padEnd(40)} ${pct(s.median)} / ${pct(s.p90)} / under>5%: ${pct(s.under5)}`);
  }
}

// ---- appending one message to a 10 000-message history ----
{
  const history = [];
  // The shortest conversations first: 10 000 messages of typical size, well under the input limit.
  const bySize = [...all].sort((a, b) => JSON.stringify(a.messages).length - JSON.stringify(b.messages).length);
  for (const c of bySize) {
    if (history.length >= 10_000) break;
    history.push(...clone(c.messages).filter((m) => m.role !== "system"));
  }
  history.length = 10_000;
  // Cut at a whole exchange: drop trailing assistant calls whose results were cut off.
  while (history.length && (history.at(-1).role === "assistant" && history.at(-1).tool_calls?.length)) history.pop();
  const coldHistory = time(() => estimate(history), { rounds: 1, prepare: () => undefined });
  estimate(history);
  const times = [];
  let current = history;
  for (let k = 0; k < 21; k++) {
    current = [...current, { role: "user", content: `And one more thing, number ${k}: run the tests again.` }];
    const t0 = performance.now();
    estimate(current);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`\nappend one message to a ${history.length}-message history and re-estimate: median ${times[10].toFixed(3)} ms (min ${times[0].toFixed(3)}, max ${times.at(-1).toFixed(3)}); the first, cold estimate took ${coldHistory.toFixed(1)} ms`);
}
