// `node scripts/compare-dists.mjs <dist-a> <dist-b> [--per-file N]`: runs every synchronous export of two
// builds of the package on the same inputs and reports any output that differs by a byte. For changes
// that must not change behaviour (a refactor, a new binding layer): build the old commit's dist/ in
// another checkout and compare.
//
// Inputs: the first N conversations (default 8) of every corpus file, each at three context windows
// (a quarter, half and the whole of its estimated tokens), with the offline digest as the summary; and
// every file of pkg-tests/formats; `compact` with summarizers that answer, fail, and answer too long.
// Each export's result is compared as JSON text, errors by code, path and message.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { corpusFiles, readCorpus } from "../pkg-tests/corpus.mjs";

const args = process.argv.slice(2);
const perFile = Number(args[args.indexOf("--per-file") + 1]) || 8;
const [a, b] = args.filter((x, i) => !x.startsWith("--") && args[i - 1] !== "--per-file");
if (!a || !b) {
  console.error("usage: node scripts/compare-dists.mjs <dist-a> <dist-b> [--per-file N]");
  process.exit(2);
}
const load = async (dist) => import(resolve(dist, "node.mjs"));
const [A, B] = [await load(a), await load(b)];

/** Every export's output for one input, each as text. */
async function outputs(ctxfold, messages, contextWindow) {
  const out = {};
  const run = (name, f) => {
    try {
      out[name] = JSON.stringify(f());
    } catch (e) {
      out[name] = `throws ${e.code} at ${e.path}: ${e.message}`;
    }
  };
  const options = { contextWindow };
  run("estimate", () => ctxfold.estimate(messages, options));
  run("estimate with a counter", () => ctxfold.estimate(messages, { ...options, counter: (text) => Math.ceil(text.length / 4) }));
  run("prune", () => ctxfold.prune(messages, options));
  run("validate", () => ctxfold.validate(messages, options));
  run("repair", () => ctxfold.repair(messages, options));
  run("cache_breakpoints", () => ctxfold.cache_breakpoints(messages, options));
  let plan;
  run("plan_compaction", () => (plan = ctxfold.plan_compaction(messages, options)));
  if (plan?.jobs?.length) {
    let summary;
    run("summarize_offline", () => (summary = ctxfold.summarize_offline(messages, plan)));
    run("apply_summary", () => ctxfold.apply_summary(messages, plan, summary));
  }
  run("session", () => {
    const session = new ctxfold.Session(messages, options);
    try {
      const prepared = session.prepare();
      return { prepared, usage: session.record({ prompt_tokens: 1000 }), health: session.health() };
    } finally {
      session.free();
    }
  });
  run("assemble_turn", () => ctxfold.assemble_turn(messages, { text: "next" }));
  // compact, with summarizers that answer, fail, and answer too long.
  const summarizers = {
    answers: async ({ user }) => `Summary of ${user.length} characters of transcript.`,
    fails: async () => {
      throw new Error("model down");
    },
    "too long": async ({ user }) => user + user,
  };
  for (const [name, summarize] of Object.entries(summarizers)) {
    for (const fallback of [undefined, "truncate"]) {
      try {
        const result = await ctxfold.compact(messages, { ...options, summarize, fallback });
        out[`compact ${name} ${fallback}`] = JSON.stringify(result, (k, v) => (v instanceof Error ? `${v.name} ${v.code} ${v.message}` : v));
      } catch (e) {
        out[`compact ${name} ${fallback}`] = `throws ${e.code} at ${e.path}: ${e.message}`;
      }
    }
  }
  return out;
}

const inputs = [];
for (const file of corpusFiles()) {
  for (const conv of readCorpus(file).slice(0, perFile)) {
    const total = A.estimate(conv.messages).total;
    for (const share of [0.25, 0.5, 1]) inputs.push({ name: `${file} ${conv.id} at ${share}`, messages: conv.messages, contextWindow: Math.max(1000, Math.round(total * share)) });
  }
}
const formats = fileURLToPath(new URL("../pkg-tests/formats/", import.meta.url));
for (const f of readdirSync(formats).filter((f) => f.endsWith(".json"))) {
  inputs.push({ name: f, messages: JSON.parse(readFileSync(formats + f, "utf8")), contextWindow: 2000 });
}

let differ = 0;
let compared = 0;
for (const input of inputs) {
  const [x, y] = [await outputs(A, input.messages, input.contextWindow), await outputs(B, input.messages, input.contextWindow)];
  for (const name of new Set([...Object.keys(x), ...Object.keys(y)])) {
    compared++;
    if (x[name] !== y[name]) {
      differ++;
      if (differ <= 10) console.log(`differs: ${name} on ${input.name}\n  a: ${String(x[name]).slice(0, 300)}\n  b: ${String(y[name]).slice(0, 300)}`);
    }
  }
}
console.log(`${compared} outputs on ${inputs.length} inputs compared: ${differ} differ`);
process.exit(differ ? 1 : 0);
