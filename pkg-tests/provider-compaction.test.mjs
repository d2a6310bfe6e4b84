// Histories holding a provider's own compaction (formats/provider-compaction/), through the installed
// package: every export keeps the item as the caller's own object, what lies before it goes first
// without a call to the summarizer, and a malformed item is refused with its path.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

const examples = fileURLToPath(new URL("./formats/provider-compaction/", import.meta.url));

/** The installed package, as a user's project imports it. */
async function api() {
  const { project } = fixture();
  return import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
}

// (file, format, key of the items, index of the item that holds the provider's compaction)
const SHAPES = [
  ["anthropic", "anthropic", "messages", 3],
  ["openai-responses", "openai-responses", "input", 4],
];

const load = (name) => JSON.parse(readFileSync(join(examples, `${name}.json`), "utf8"));

/** A limit that dropping what lies before the item meets, and a summary would not be needed for. */
function limitForDrop(ctxfold, body, at) {
  const { total, perMessage } = ctxfold.estimate(body);
  const after = perMessage.slice(at).reduce((a, b) => a + b, 0);
  return Math.min(total - 1, total - Math.ceil(after / 2));
}

for (const [name, format, key, at] of SHAPES) {
  test(`${name}: every export keeps the compaction item as it is`, async () => {
    const ctxfold = await api();
    const body = load(name);
    const before = JSON.stringify(body);
    const item = body[key][at];
    assert.equal(ctxfold.estimate(body).format, format);
    assert.equal(ctxfold.validate(body).valid, true, JSON.stringify(ctxfold.validate(body).problems));
    assert.equal(ctxfold.repair(body).repairs.length, 0);
    const pruned = ctxfold.prune(body, { protectTokens: 0, minimumPruneTokens: 0 });
    assert.ok(pruned.pruned.length > 0);
    assert.equal(pruned.messages[key][at], item, "prune: the caller's own object");
    const plan = ctxfold.plan_compaction(body, { force: true, keepRecentTurns: 1 });
    assert.ok(plan.summarize.every((r) => r.start > at), `never summarized again: ${JSON.stringify(plan.summarize)}`);
    const applied = ctxfold.apply_summary(body, plan, ctxfold.summarize_offline(body, plan));
    assert.ok(applied.messages[key].includes(item), "apply_summary: the caller's own object");
    assert.equal(ctxfold.validate(applied.messages).valid, true);
    const { questions } = ctxfold.quality_probe(body, plan);
    assert.ok(questions.every((q) => q.message > at), "the probe asks only about what the plan summarizes");
    // After the assistant's answer (both examples end with a user turn: it goes), the next user turn.
    const answered = { ...body, [key]: body[key].slice(0, -1) };
    const next = ctxfold.assemble_turn(answered, { text: "And the return trip?" });
    const extended = { ...body, [key]: [...answered[key], ...next.messages] };
    assert.equal(ctxfold.validate(extended).valid, true, "assemble_turn: the next turn follows on");
    if (format === "anthropic") {
      const marked = ctxfold.cache_breakpoints(body, { apply: true });
      assert.equal(marked.messages[key][at].content[0], item.content[0], "cache_breakpoints never marks the block");
    }
    assert.equal(JSON.stringify(body), before, "the input is never mutated");
  });

  test(`${name}: over the limit, what lies before the item goes first, with no summarizer call`, async () => {
    const ctxfold = await api();
    const body = load(name);
    const thresholdTokens = limitForDrop(ctxfold, body, at);
    const plan = ctxfold.plan_compaction(body, { thresholdTokens });
    assert.deepEqual([plan.needed, plan.reason, plan.dropped, plan.jobs], [true, "over_limit", { start: 0, end: at }, []]);
    const applied = ctxfold.apply_summary(body, plan);
    assert.deepEqual(applied.messages[key], body[key].slice(at));
    applied.messages[key].forEach((m, i) => assert.equal(m, body[key][at + i], `message ${i} is the caller's own`));
    assert.ok(applied.tokensAfter <= thresholdTokens);

    const summarize = () => assert.fail("nothing to summarize: the provider's item stands for what went");
    const compacted = await ctxfold.compact(body, { thresholdTokens, summarize });
    assert.equal(compacted.compacted, true);
    assert.deepEqual(compacted.messages[key], body[key].slice(at));

    const session = new ctxfold.Session(body, { thresholdTokens });
    const prepared = session.prepare();
    assert.equal(prepared.action, "compact");
    assert.deepEqual(prepared.plan.jobs, []);
    assert.deepEqual(session.apply_summary(undefined).messages[key], body[key].slice(at));
    assert.equal(session.prepare().action, "send");
    session.free();
  });

  test(`${name}: dropBeforeProviderCompaction drops it under the limit too`, async () => {
    const ctxfold = await api();
    const body = load(name);
    assert.equal(ctxfold.plan_compaction(body).needed, false);
    const plan = ctxfold.plan_compaction(body, { dropBeforeProviderCompaction: true });
    assert.deepEqual([plan.needed, plan.reason, plan.dropped], [true, "provider_compaction", { start: 0, end: at }]);
    assert.deepEqual(ctxfold.apply_summary(body, plan, []).messages[key], body[key].slice(at));
  });
}

test("a malformed compaction item is refused with its path, and the module keeps working", async () => {
  const ctxfold = await api();
  const responses = load("openai-responses");
  delete responses.input[4].encrypted_content;
  const anthropic = load("anthropic");
  anthropic.messages[3].content[0].content = "";
  for (const [body, path] of [[responses, "input[4].encrypted_content"], [anthropic, "messages[3].content[0].content"]]) {
    assert.throws(() => ctxfold.estimate(body), (e) => e instanceof Error && e.code === "INVALID_INPUT" && e.path === path);
    assert.throws(() => ctxfold.plan_compaction(body), (e) => e.code === "INVALID_INPUT" && e.path === path);
  }
  assert.equal(ctxfold.estimate(load("anthropic")).format, "anthropic");
});

test("encrypted content costs about a token per five characters, not what its base64 would", async () => {
  const ctxfold = await api();
  const body = load("openai-responses");
  const chars = body.input[4].encrypted_content.length;
  const cost = ctxfold.estimate(body).perMessage[4];
  assert.ok(cost >= chars / 5 && cost <= chars / 5 + 8, `${cost} tokens for ${chars} characters`);
});
