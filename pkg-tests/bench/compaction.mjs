// `npm run bench` (after the estimate bench): plan_compaction, summarize_offline and apply_summary on
// generated agent-run histories of 100 to 100 000 messages, to show how their time grows with size.
// DESIGN's target: plan on 10 000 messages linear in size and within 1.5× of one estimate pass, so each
// row also prints the ratio plan / estimate on the same history. Prints numbers; asserts nothing
// (benchmarks never fail on time). Uses the built package (dist/) through its Node entry, so the
// JS ⇄ wasm boundary (reading the caller's arrays) is inside every measurement, as a host sees it.
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";

const { estimate, plan_compaction, summarize_offline, apply_summary } = await import("../../dist/node.mjs");

const SIZES = [100, 1_000, 10_000, 100_000];

/**
 * An agent run of about `count` messages, the shape of src/fixtures.rs's agent_run and the corpus's
 * coding agents: a request, then tool calls (bash, read) with their results, a short report, and a
 * follow-up request now and then. Messages are short so that 100 000 of them stay under the 8 Mi
 * characters of JSON a call accepts (src/reading/input.rs); every size uses the same shape, so times compare.
 */
function agentRun(count) {
  const messages = [{ role: "system", content: "You are a coding agent. Work in /repo." }];
  let step = 0;
  while (messages.length < count) {
    const round = step++;
    messages.push({ role: "user", content: `Fix #${round} in m${round % 50}.py` });
    for (let k = 0; k < 2 && messages.length < count - 2; k++) {
      const id = `${round.toString(36)}${k}`;
      const command = k === 0 ? `pytest t${round % 40}.py` : `cat m${round % 50}.py`;
      messages.push({ role: "assistant", tool_calls: [{ id, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }] });
      messages.push({ role: "tool", tool_call_id: id, content: k === 0 ? `IndexError: x` : `return x[${k}]` });
    }
    messages.push({ role: "assistant", content: "Fixed." });
  }
  messages.length = Math.min(messages.length, count);
  // End on a whole exchange: no trailing call without its result.
  while (messages.at(-1).tool_calls) messages.pop();
  return messages;
}

/** Best of `rounds` timed runs (ms). */
function time(fn, rounds) {
  let best = Infinity;
  let value;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    value = fn();
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, value };
}

console.log(`ctxfold compaction benchmark — ${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model ?? "?"} (${cpus().length} cores), Node ${process.version}`);
console.log("generated agent runs; times are the best of 3 runs (1 run at 100 000 messages), JS ⇄ wasm boundary included\n");
// "plan, fits": the same plan with a summarizer window the whole transcript fits in, so the prompt is rendered
// once instead of being degraded to fit (which the default, a summarizer as large as the model, needs here).
const head = ["messages", "JSON MB", "estimate ms", "plan ms", "plan µs/msg", "plan/estimate", "plan, fits ms", "offline ms", "apply ms", "apply µs/msg"];
console.log(head.map((h, i) => (i === 0 ? h.padEnd(9) : h.padStart(14))).join(""));
for (const size of SIZES) {
  const messages = agentRun(size);
  const rounds = 3;
  const megabytes = JSON.stringify(messages).length / 1e6;
  // A fresh copy per round: estimate caches per message object, and the ratio is against a cold pass.
  const copies = Array.from({ length: rounds }, () => structuredClone(messages));
  const est = time(() => estimate(copies.pop()), rounds);
  // A window of three quarters of the history: compaction is needed, as in pkg-tests/scenario.mjs.
  const options = { contextWindow: Math.ceil(est.value.total * 0.75) };
  const plan = time(() => plan_compaction(messages, options), rounds);
  if (!plan.value.needed) throw new Error(`the plan for ${size} messages does not compact (${plan.value.reason})`);
  const roomy = time(() => plan_compaction(messages, { ...options, summarizerWindow: 1e9 }), rounds);
  const offline = time(() => summarize_offline(messages, plan.value), rounds);
  const apply = time(() => apply_summary(messages, plan.value, offline.value), rounds);
  const n = messages.length;
  const cells = [
    String(n).padEnd(9),
    megabytes.toFixed(2),
    est.ms.toFixed(1),
    plan.ms.toFixed(1),
    ((plan.ms * 1000) / n).toFixed(2),
    `${(plan.ms / est.ms).toFixed(2)}×`,
    roomy.ms.toFixed(1),
    offline.ms.toFixed(1),
    apply.ms.toFixed(1),
    ((apply.ms * 1000) / n).toFixed(2),
  ];
  console.log(cells.map((c, i) => (i === 0 ? c : c.padStart(14))).join(""));
}
