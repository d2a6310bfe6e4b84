// What a summary lost is restored after it, through the installed package, on a real conversation and a real
// model's summary: the appended list fits the history's limit by giving up its last lines, never all of them.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { readCorpus } from "./corpus.mjs";
import { fixture } from "./fixture.mjs";

async function api() {
  const { project } = fixture();
  return import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
}

// The summary Qwen2.5-Coder-1.5B-Instruct wrote of medicalgpt-zh conversation 360 at the eval's budget (`npm run
// eval`): it names retailers and trade shows, then loops until its output budget runs out, and loses the hotels.
const LOOPING_SUMMARY =
  "The conversation transcript is about listing the largest outdoor retailers, European outdoor retailers, the best " +
  "outdoor trade exhibitions, outdoor furniture trade exhibitions, the largest高端精品 hotels in the United States and " +
  "Europe, and the best beaches in Los Angeles and Málaga. The largest outdoor retailers are REI, Dick's Sporting " +
  "Goods, Decathlon, Cabela's, Academy Sports + Outdoors, The North Face, Patagonia, Columbia Sportswear, Mountain " +
  "Hardwear, OutDoor by ISPO, SIA Snow Show, Outdoor, Bike, OutDoor Friedrichshafen, China OutDoor, The OutDoor Show, " +
  "ICFA, spoga+gafa, CIGLF, The Outdoor Design & Build Show, Outdoor Living, Glee, The Garden and Home Show, " +
  "OutDoor Living, Glee, The Garden and Home Show, ".repeat(12) + "OutDoor Living, Glee, The";

test("a long summary that lost the hotels gets them back within the limit", async () => {
  const { plan_compaction, apply_summary } = await api();
  const messages = readCorpus("medicalgpt-zh.jsonl").find((c) => c.id === "medgpt-360").messages;
  const plan = plan_compaction(messages, { contextWindow: 1511, template: "general" });
  assert.equal(plan.needed, true);
  const result = apply_summary(messages, plan, LOOPING_SUMMARY);
  assert.ok(result.tokensAfter <= plan.limit, `${result.tokensAfter} > ${plan.limit}`);
  assert.ok(result.factsAppended.some((f) => f.includes("Hotel")), JSON.stringify(result.factsAppended));
  const summary = result.messages.map((m) => m.content).find((c) => typeof c === "string" && c.includes("ctxfold-summary"));
  assert.match(summary, /Facts from the summarized messages, verbatim:[\s\S]*The Shore Hotel/);
  assert.ok(result.warnings.some((w) => w.includes("were cut to make room")), JSON.stringify(result.warnings));
});
