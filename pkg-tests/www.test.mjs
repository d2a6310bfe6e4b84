// The demo page (www/), built by Vite with the package and used in Chromium as a person would: load the
// bundled sample, plan, take the offline digest, apply; then paste a hostile conversation, and ask the
// local test server for a summary. What the page shows is compared with the package's own results,
// computed here in Node from the same dist/ (the plan and prompt are deterministic, so they must be
// identical). Screenshots go to target/screenshots/ (gitignored) for a person to look at.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import { launchChromium, serveStatic } from "./browser.mjs";
import { fixture } from "./fixture.mjs";
import { SUMMARY_PREFIX, startLlmServer } from "./llm-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const shots = join(root, "target", "screenshots");
const ctxfold = await import(join(root, "dist", "node.mjs"));
const sample = JSON.parse(readFileSync(join(root, "www", "samples", "agent-run.json"), "utf8")).messages;
const n = (x) => x.toLocaleString("en-US");
// The page's defaults (www/index.html).
const OPTIONS = { contextWindow: 64000, protectTokens: 8000, minimumPruneTokens: 4000 };

let chromium, site, page;
before(async () => {
  const outDir = join(fixture().scratch, "www");
  await build({ configFile: join(root, "www", "vite.config.mjs"), build: { outDir, emptyOutDir: true } });
  site = await serveStatic(outDir);
  chromium = await launchChromium();
  mkdirSync(shots, { recursive: true });
});
after(async () => {
  await chromium?.close();
  await site?.stop();
});

async function openPage() {
  const p = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
  p.errors = [];
  p.on("pageerror", (e) => p.errors.push(String(e)));
  await p.goto(site.url);
  await p.waitForSelector("body[data-ready=true]");
  return p;
}
const text = (sel) => page.locator(sel).first().textContent();

test("the sample: the chart, totals, plan and exact prompt match the package's own results", async () => {
  page = await openPage();
  await page.click("#load-sample");
  await page.waitForFunction(() => document.getElementById("loaded").textContent.includes("messages"));
  assert.match(await text("#loaded"), new RegExp(`${sample.length} messages`));
  await page.click("#plan");
  await page.waitForSelector("#overview:not([hidden])");

  const est = ctxfold.estimate(sample, OPTIONS);
  const pruned = ctxfold.prune(sample, OPTIONS);
  const plan = ctxfold.plan_compaction(pruned.messages, OPTIONS);
  assert.ok(plan.needed && plan.jobs.length === 1, "the sample needs one summary at the page's default window");

  assert.equal(await page.locator("#chart g.bar").count(), sample.length, "one bar per message");
  const pinned = new Set(plan.pinned);
  const summarized = plan.summarize.reduce((k, r) => k + (r.end - r.start), 0) - plan.pinned.length;
  assert.equal(await page.locator("#chart g.action-summarize").count(), summarized);
  const prunedOutside = pruned.pruned.filter((p) => !plan.summarize.some((r) => p.index >= r.start && p.index < r.end && !pinned.has(p.index)));
  assert.equal(await page.locator("#chart g.action-prune").count(), prunedOutside.length);
  assert.equal(await text("#total-tokens"), `${n(est.total)} tokens`);
  assert.equal(await text("#used"), `${Math.round(est.budget.used * 100)}% used`);
  assert.match(await text("#plan-facts"), new RegExp(`${pruned.pruned.length} old tool outputs cleared`));
  assert.match(await text("#plan-facts"), new RegExp(`#${plan.summarize[0].start}–#${plan.summarize[0].end - 1}`));
  assert.equal(await text(".prompt-system"), plan.jobs[0].prompt.system, "the exact system prompt");
  assert.equal(await text(".prompt-user"), plan.jobs[0].prompt.user, "the exact transcript prompt");
  await page.screenshot({ path: join(shots, "demo-1-plan.png"), fullPage: true });
  await page.locator("#overview").screenshot({ path: join(shots, "demo-1-chart.png") });
});

test("the offline digest, applied: result totals, audit and compacted history match the package", async () => {
  const pruned = ctxfold.prune(sample, OPTIONS);
  const plan = ctxfold.plan_compaction(pruned.messages, OPTIONS);
  const digest = ctxfold.summarize_offline(pruned.messages, plan);
  const res = ctxfold.apply_summary(pruned.messages, plan, digest);

  await page.click("#offline");
  assert.equal(await page.inputValue("#summaries textarea"), digest[plan.jobs[0].id]);
  await page.click("#apply");
  await page.waitForSelector("#result-section:not([hidden])");
  assert.equal(await text("#result-tokens"), `${n(res.tokensBefore)} → ${n(res.tokensAfter)} tokens`);
  assert.ok(res.tokensAfter < res.tokensBefore);
  const audit = await text("#audit");
  assert.match(audit, new RegExp(`${n(res.audit.summarizedMessages)} messages, ${n(res.audit.summarizedTokens)} tokens`));
  for (const fact of res.audit.factsKept.slice(0, 5)) assert.ok(audit.includes(fact), `audit shows the kept fact ${fact}`);
  assert.deepEqual(JSON.parse(await text("#result-json")), res.messages);
  assert.equal(await page.locator("#result-chart g.bar").count(), res.messages.length);
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: join(shots, "demo-2-result.png"), fullPage: true });
  await page.locator("#result-section").screenshot({ path: join(shots, "demo-2-result-section.png") });
  await page.close();
});

test("conversation text is shown as text: markup in messages never becomes HTML", async () => {
  page = await openPage();
  const hostile = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b>bold?</b>';
  const conv = [{ role: "system", content: "You help." }];
  for (let t = 0; t < 12; t++) {
    // In every user turn: a small window leaves the oldest turns out of the summary prompt.
    conv.push({ role: "user", content: `${hostile} ${"word ".repeat(150)}` });
    conv.push({ role: "assistant", content: `Answer ${t}: ${"text ".repeat(150)}` });
  }
  await page.fill("#paste", JSON.stringify(conv));
  await page.click("#use-paste");
  await page.fill("#context-window", "1000");
  await page.click("#plan");
  await page.waitForSelector("#prompt-section:not([hidden])");
  assert.ok((await text(".prompt-user")).includes(hostile), "the markup is shown literally in the prompt");
  await page.click("#offline");
  await page.click("#apply");
  await page.waitForSelector("#result-section:not([hidden])");
  assert.ok((await text("#result-json")).includes("window.__xss=1"));
  const injected = await page.evaluate(() => ({ xss: window.__xss, imgs: document.images.length, bold: document.querySelectorAll("main b").length }));
  assert.deepEqual(injected, { xss: undefined, imgs: 0, bold: 0 });
  assert.deepEqual(page.errors, []);
});

test("a conversation opened from a file is loaded", async () => {
  await page.setInputFiles("#file", join(root, "www", "samples", "agent-run.json"));
  await page.waitForFunction(() => document.getElementById("loaded").textContent.startsWith("agent-run.json"));
  assert.equal(await text("#loaded"), `agent-run.json: ${sample.length} messages`);
});

test("bad input shows the package's error (code and path), as text", async () => {
  await page.fill("#paste", '{"messages": [{"content": "<i>no role</i>"}]}');
  await page.click("#use-paste");
  await page.click("#plan");
  await page.waitForSelector("#error:not([hidden])");
  assert.match(await text("#error"), /^INVALID_INPUT at messages\[0\]\.role: /);
  await page.fill("#paste", "not json");
  await page.click("#use-paste");
  assert.match(await text("#error"), /JSON/);
  assert.equal(await page.locator("#error i").count(), 0);
  await page.close();
});

test("Ask the model: the page calls an OpenAI-compatible endpoint with the user's URL, model and key", async () => {
  const llm = await startLlmServer();
  page = await openPage();
  try {
    await page.click("#load-sample");
    await page.waitForFunction(() => document.getElementById("loaded").textContent.includes("messages"));
    await page.click("#plan");
    await page.waitForSelector("#summary-section:not([hidden])");
    await page.click("#llm summary");
    await page.fill("#llm-url", `${llm.url}/ok/v1`);
    await page.fill("#llm-model", "demo-model");
    await page.fill("#llm-key", "sk-demo-page-key");
    await page.click("#ask");
    await page.waitForFunction((prefix) => document.querySelector("#summaries textarea").value.startsWith(prefix), SUMMARY_PREFIX);
    const [req] = llm.requests;
    assert.equal(req.headers.authorization, "Bearer sk-demo-page-key");
    assert.equal(req.body.model, "demo-model");
    assert.ok(req.body.messages[1].content.length > 1000, "the transcript was sent");
    await page.screenshot({ path: join(shots, "demo-3-model.png"), fullPage: false });
    await page.click("#apply");
    await page.waitForSelector("#result-section:not([hidden])");
    assert.ok((await text("#result-json")).includes(SUMMARY_PREFIX));
    const stored = await page.evaluate(() => localStorage.length + sessionStorage.length + document.cookie.length);
    assert.equal(stored, 0, "nothing stored in the browser");
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
    await llm.stop();
  }
});

test("the session view: one bar per request, the edits marked, and the health the package computes", async () => {
  const { replaySession } = await import(join(root, "www", "session-replay.js"));
  const health = replaySession(ctxfold, sample, OPTIONS);
  const asks = sample.filter((m, k) => k > 0 && m.role === "assistant").length;
  assert.equal(health.requests, asks, "a request before each assistant message");
  assert.ok(health.compactions.count + health.prunes.count > 0, "the sample is edited at the page's defaults");
  page = await openPage();
  try {
    await page.click("#load-sample");
    await page.waitForFunction(() => document.getElementById("loaded").textContent.includes("messages"));
    await page.click("#replay-session");
    await page.waitForSelector("#session-section:not([hidden])");
    assert.equal(await page.locator("#timeline g.request").count(), health.requests);
    const edits = health.timeline.filter((r) => r.edit).length;
    assert.equal(await page.locator("#timeline g.request:not([data-edit=none])").count(), edits);
    const facts = await text("#session-facts");
    assert.ok(facts.includes(`${(health.cacheHitRate * 100).toFixed(1)}%`), facts);
    assert.ok(facts.includes(`${n(health.compactions.count)}, ${n(health.compactions.tokensSaved)} tokens saved`), facts);
    await page.locator("#session-section").screenshot({ path: join(shots, "demo-4-session.png") });
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});
