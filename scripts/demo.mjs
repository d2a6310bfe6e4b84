// `npm run demo [-- FILE.json] [--context-window N] [--out DIR]`: the main job, offline, on the bundled
// agent run (www/samples/agent-run.json) or on your own JSON file: an array of messages in any supported
// format, or a request body holding one (`messages`, `contents` or `input`). Prints the estimate, what
// prune cleared and the plan; writes the summary prompt; applies the offline digest as the summary;
// prints tokens before and after.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { apply_summary, estimate, plan_compaction, prune, summarize_offline } from "ctxfold";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i < 0 ? fallback : args.splice(i, 2)[1];
};
const contextWindow = Number(flag("--context-window", "64000"));
const outDir = resolve(flag("--out", join(root, "target", "demo")));
const file = resolve(args[0] ?? join(root, "www", "samples", "agent-run.json"));

// Every function takes the array or the body that holds it; `items` is for printing.
const messages = JSON.parse(readFileSync(file, "utf8"));
const items = (v) => (Array.isArray(v) ? v : v.messages ?? v.contents ?? v.input ?? []);
// OpenCode's prune defaults (protect 20K, prune at least 10K) suit 200K windows; the demo scales them down.
const options = { contextWindow, protectTokens: 8000, minimumPruneTokens: 4000 };
const n = (x) => x.toLocaleString("en-US");
const show = (p) => relative(process.cwd(), p) || p;

try {
  console.log(`ctxfold demo: ${show(file)} (${items(messages).length} messages), context window ${n(contextWindow)} tokens\n`);

  const est = estimate(messages, options);
  console.log(`estimate: ${n(est.total)} tokens (${est.format}, ${est.tokenizer} profile), limit ${n(est.budget.limit)} ` +
    `(window − ${n(est.budget.reservedOutput)} reserved for the answer, × threshold): ${(est.budget.used * 100).toFixed(0)}% used`);
  const biggest = est.perMessage.map((t, i) => [t, i]).sort((a, b) => b[0] - a[0]).slice(0, 3);
  console.log(`  largest messages: ${biggest.map(([t, i]) => `#${i} ${items(messages)[i].role ?? items(messages)[i].type} ${n(t)}`).join(", ")}\n`);

  const pruned = prune(messages, options);
  const tools = new Set(pruned.pruned.map((p) => p.toolName));
  console.log(`prune (newest ${n(options.protectTokens)} tokens of output protected): cleared ${pruned.pruned.length} old tool outputs (${[...tools].join(", ") || "none"}), ` +
    `${n(pruned.tokensBefore)} → ${n(pruned.tokensAfter)} tokens`);
  const unchanged = items(pruned.messages).filter((m, i) => m === items(messages)[i]).length;
  console.log(`  ${unchanged} of ${items(messages).length} messages are the very same objects as the input\n`);

  const history = pruned.messages;
  const plan = plan_compaction(history, options);
  console.log(`plan: needed=${plan.needed} (${plan.reason}): ${plan.detail}`);
  for (const w of plan.warnings) console.log(`  warning: ${w}`);
  if (plan.jobs.length === 0) {
    console.log("\nNothing to compact. Try a smaller window: npm run demo -- --context-window 16000");
    process.exit(0);
  }
  const job = plan.jobs[0];
  console.log(`  summarize messages #${job.range.start}–#${job.range.end - 1}, keep ${plan.keep.map((r) => `#${r.start}–#${r.end - 1}`).join(" and ")}` +
    (plan.pinned.length ? `, pinned ${plan.pinned.join(", ")}` : ""));
  console.log(`  expected after compaction: about ${n(plan.estimatedTokensAfter)} tokens; ask for at most ${n(job.maxOutputTokens)} output tokens`);

  mkdirSync(outDir, { recursive: true });
  const promptFile = join(outDir, "summary-prompt.md");
  writeFileSync(promptFile, `# System\n\n${job.prompt.system}\n\n# User\n\n${job.prompt.user}\n`);
  console.log(`  the summary prompt (${n(job.prompt.user.length)} characters) is in ${show(promptFile)}\n`);

  // Offline: a deterministic digest stands in for the LLM's answer.
  const summary = summarize_offline(history, plan);
  const result = apply_summary(history, plan, summary);
  const historyFile = join(outDir, "compacted.json");
  writeFileSync(historyFile, JSON.stringify(result.messages, null, 1));
  console.log(`apply_summary (offline digest): ${items(history).length} → ${items(result.messages).length} messages, ` +
    `${n(result.tokensBefore)} → ${n(result.tokensAfter)} tokens`);
  const { audit } = result;
  console.log(`  audit: ${audit.summarizedMessages} messages (${n(audit.summarizedTokens)} tokens) became ${n(audit.summaryTokens)} tokens; ` +
    `facts kept ${audit.factsKept.length}, missing ${audit.factsMissing.length}`);
  for (const w of result.warnings) console.log(`  warning: ${w}`);
  console.log(`  the compacted history is in ${show(historyFile)}\n`);
  console.log(`total: ${n(est.total)} → ${n(result.tokensAfter)} tokens (${((1 - result.tokensAfter / est.total) * 100).toFixed(0)}% smaller)`);
} catch (err) {
  // ctxfold errors say what is wrong and where: show that, not a stack.
  if (err?.code) {
    console.error(`${show(file)}: ${err.code} at ${err.path}: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
