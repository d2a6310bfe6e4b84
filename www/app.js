// The demo page: load a conversation, see its tokens and the plan, get a summary (offline digest, a
// pasted answer, or an OpenAI-compatible endpoint), apply it, read the audit. Every call is the
// package's own API, exactly as an app would use it.
import init, { apply_summary, estimate, openai_summarizer, plan_compaction, prune, summarize_offline } from "ctxfold";
import { ACTION_COLORS, barChart, ROLE_COLORS } from "./chart.js";
import { el, facts, fill, n } from "./dom.js";
import * as ctxfold from "ctxfold";
import { replaySession } from "./session-replay.js";
import { renderSession, sessionLegend } from "./session-view.js";

const $ = (id) => document.getElementById(id);
const SAMPLE_URL = new URL("./samples/agent-run.json", import.meta.url);

/** What the page works on: the loaded messages, then what each step produced. */
const state = { messages: null, name: "", est: null, pruned: null, plan: null };

function showError(e) {
  const box = $("error");
  box.hidden = false;
  // ctxfold's errors say what is wrong and where: code, path, message.
  box.textContent = e?.code ? `${e.code} at ${e.path}: ${e.message}` : String(e?.message ?? e);
}

function clearError() {
  $("error").hidden = true;
}

/** Accepts an array of messages, or an object holding them (a request body, or the sample's wrapper). */
function messagesOf(loaded) {
  if (Array.isArray(loaded)) return loaded;
  for (const key of ["messages", "contents", "input"]) if (Array.isArray(loaded?.[key])) return loaded[key];
  throw new Error("expected a JSON array of messages, or an object with a \"messages\" array");
}

function load(text, name) {
  clearError();
  try {
    state.messages = messagesOf(JSON.parse(text));
  } catch (e) {
    state.messages = null;
    $("plan").disabled = true;
    $("replay-session").disabled = true;
    showError(e);
    return;
  }
  state.name = name;
  for (const id of ["overview", "plan-section", "prompt-section", "summary-section", "result-section", "session-section"]) $(id).hidden = true;
  $("loaded").textContent = `${name}: ${n(state.messages.length)} messages`;
  $("plan").disabled = false;
  $("replay-session").disabled = false;
}

function options() {
  return {
    contextWindow: Number($("context-window").value),
    protectTokens: Number($("protect-tokens").value),
    minimumPruneTokens: Number($("minimum-prune").value),
  };
}

const roleOf = (m) => (typeof m?.role === "string" ? m.role : "other");

/** keep / prune / summarize for each input message: prune's list, then the plan's ranges (made on the pruned history). */
function actions(count, pruned, plan) {
  const out = Array(count).fill("keep");
  for (const p of pruned.pruned) out[p.index] = "prune";
  const pinned = new Set(plan.pinned);
  for (const r of plan.summarize) for (let i = r.start; i < r.end; i++) if (!pinned.has(i)) out[i] = "summarize";
  return out;
}

function legend() {
  const swatch = (color) => el("span", { class: "swatch", style: `background:${color}` });
  const roles = ["system", "user", "assistant", "tool"].map((r) => el("span", { class: "key" }, swatch(ROLE_COLORS[r]), r));
  const acts = Object.entries(ACTION_COLORS).map(([a, c]) => el("span", { class: "key" }, swatch(c), a));
  return [el("span", { class: "legend-title" }, "bar: role"), ...roles, el("span", { class: "legend-title" }, "strip: plan"), ...acts];
}

function meter(parts, limit) {
  const max = Math.max(limit, ...parts.map((p) => p.tokens)) * 1.05;
  const bars = parts.map((p) => el("div", { class: "meter-row" },
    el("span", { class: "meter-label" }, p.label),
    el("span", { class: "meter-track" },
      el("span", { class: `meter-fill ${p.tokens > limit ? "over" : ""}`, style: `width:${(p.tokens / max) * 100}%` }),
      el("span", { class: "meter-limit", style: `left:${(limit / max) * 100}%`, title: `limit ${n(limit)}` })),
    el("span", { class: "meter-value" }, `${n(p.tokens)} tokens`)));
  return bars;
}

function chartItems(messages, perMessage, acts) {
  return messages.map((m, i) => ({
    tokens: perMessage[i], role: roleOf(m), action: acts[i],
    label: `#${i} ${roleOf(m)}: ${n(perMessage[i])} tokens, ${acts[i]}`,
  }));
}

function runPlan() {
  clearError();
  try {
    const opts = options();
    const est = estimate(state.messages, opts);
    const pruned = prune(state.messages, opts);
    const plan = plan_compaction(pruned.messages, opts);
    Object.assign(state, { est, pruned, plan });
    const acts = actions(state.messages.length, pruned, plan);

    const b = est.budget;
    fill($("totals"),
      el("p", {}, el("strong", { id: "total-tokens" }, `${n(est.total)} tokens`), ` in ${n(state.messages.length)} messages (${est.tokenizer} estimate). `,
        `Limit ${n(b.limit)}: a window of ${n(b.contextWindow)}, less ${n(b.reservedOutput)} kept for the answer, × the threshold. `,
        el("strong", { id: "used" }, `${Math.round(b.used * 100)}% used`), "."));
    fill($("meter"), meter([
      { label: "now", tokens: est.total },
      { label: "after prune", tokens: pruned.tokensAfter },
      { label: "after the plan", tokens: plan.jobs.length ? plan.estimatedTokensAfter : pruned.tokensAfter },
    ], b.limit));
    $("overview").hidden = false; // before drawing: the chart takes the width the section has
    fill($("chart"), barChart(chartItems(state.messages, est.perMessage, acts), $("chart").clientWidth || 900));
    fill($("legend"), legend());

    const ranges = (rs) => rs.map((r) => (r.end - r.start === 1 ? `#${r.start}` : `#${r.start}–#${r.end - 1}`)).join(", ") || "none";
    fill($("plan-facts"), facts([
      ["needed", `${plan.needed ? "yes" : "no"} (${plan.reason})`],
      ["why", plan.detail],
      ["prune", pruned.pruned.length ? `${pruned.pruned.length} old tool outputs cleared: ${n(pruned.tokensBefore)} → ${n(pruned.tokensAfter)} tokens` : "nothing to clear"],
      ["summarize", ranges(plan.summarize)],
      ["keep", ranges(plan.keep)],
      ["pinned", plan.pinned.length ? plan.pinned.map((i) => `#${i}`).join(", ") : "none"],
      ["expected after", `about ${n(plan.estimatedTokensAfter)} tokens`],
      ["warnings", plan.warnings.join(" ") || "none"],
    ]));

    fill($("prompts"), plan.jobs.map((job) => el("div", { class: "job" },
      el("h3", {}, `Job ${job.id}: messages #${job.range.start}–#${job.range.end - 1}, at most ${n(job.maxOutputTokens)} output tokens`),
      el("h4", {}, "System"), el("pre", { class: "scroll prompt-system" }, job.prompt.system),
      el("h4", {}, `User (${n(job.prompt.user.length)} characters)`), el("pre", { class: "scroll prompt-user" }, job.prompt.user))));
    fill($("summaries"), plan.jobs.map((job) => el("label", { class: "summary" }, `Summary for ${job.id} (paste the model's answer here)`,
      el("textarea", { rows: 8, "data-job": job.id, spellcheck: "false" }))));

    $("overview").hidden = false;
    $("plan-section").hidden = false;
    $("prompt-section").hidden = plan.jobs.length === 0;
    $("summary-section").hidden = plan.jobs.length === 0;
    $("result-section").hidden = true;
  } catch (e) {
    showError(e);
  }
}

const summaryBoxes = () => [...document.querySelectorAll("#summaries textarea")];

function useOffline() {
  clearError();
  try {
    const digest = summarize_offline(state.pruned.messages, state.plan);
    for (const box of summaryBoxes()) box.value = digest[box.dataset.job];
  } catch (e) {
    showError(e);
  }
}

async function askModel() {
  clearError();
  const button = $("ask");
  button.disabled = true;
  try {
    // The key lives only in this call: the client keeps it for its requests and puts it in no error.
    const summarize = openai_summarizer({ baseUrl: $("llm-url").value.trim(), model: $("llm-model").value.trim(), apiKey: $("llm-key").value || undefined });
    for (const job of state.plan.jobs) {
      const box = summaryBoxes().find((b) => b.dataset.job === job.id);
      box.value = "…asking the model…";
      box.value = await summarize({ ...job.prompt, maxOutputTokens: job.maxOutputTokens });
    }
  } catch (e) {
    for (const box of summaryBoxes()) if (box.value === "…asking the model…") box.value = "";
    showError(e);
  } finally {
    button.disabled = false;
  }
}

function apply() {
  clearError();
  try {
    const summary = Object.fromEntries(summaryBoxes().map((b) => [b.dataset.job, b.value]));
    const history = state.pruned.messages;
    const res = apply_summary(history, state.plan, summary);
    const after = estimate(res.messages, options());
    const start = state.est.total;
    fill($("result-totals"),
      el("p", {}, el("strong", { id: "result-tokens" }, `${n(res.tokensBefore)} → ${n(res.tokensAfter)} tokens`),
        `, ${n(history.length)} → ${n(res.messages.length)} messages. `,
        `From the start (before pruning, ${n(start)} tokens): ${Math.round((1 - res.tokensAfter / start) * 100)}% smaller. `,
        el("strong", {}, after.budget.used <= 1 ? "Within the limit." : "Still over the limit.")),
      meter([
        { label: "before", tokens: start },
        { label: "after prune", tokens: res.tokensBefore },
        { label: "after summary", tokens: res.tokensAfter },
      ], after.budget.limit));
    $("result-section").hidden = false;
    const acts = res.messages.map((m) => (typeof m.content === "string" && m.content.startsWith("<ctxfold-summary") ? "summarize" : "keep"));
    fill($("result-chart"), barChart(chartItems(res.messages, after.perMessage, acts), $("result-chart").clientWidth || 900));
    const a = res.audit;
    fill($("audit"), facts([
      ["summarized", `${n(a.summarizedMessages)} messages, ${n(a.summarizedTokens)} tokens → a summary of ${n(a.summaryTokens)} tokens`],
      ["facts kept", a.factsKept.join(", ") || "none"],
      ["facts missing", a.factsMissing.join(", ") || "none"],
      ["warnings", res.warnings.join(" ") || "none"],
    ]));
    $("result-json").textContent = JSON.stringify(res.messages, null, 2);
    $("result-section").scrollIntoView({ block: "start" });
  } catch (e) {
    showError(e);
  }
}

async function main() {
  await init();
  $("load-sample").addEventListener("click", async () => {
    try {
      load(await (await fetch(SAMPLE_URL)).text(), "bundled sample (a SWE-bench agent run)");
    } catch (e) {
      showError(e);
    }
  });
  $("file").addEventListener("change", async (event) => {
    const file = event.target.files?.[0];
    if (file) load(await file.text(), file.name);
  });
  $("use-paste").addEventListener("click", () => load($("paste").value, "pasted JSON"));
  $("plan").addEventListener("click", runPlan);
  $("replay-session").addEventListener("click", () => {
    clearError();
    try {
      const health = replaySession(ctxfold, state.messages, options());
      $("session-section").hidden = false; // first, so the timeline can take the section's width
      fill($("session-legend"), sessionLegend());
      renderSession($("timeline"), $("session-facts"), health, $("timeline").clientWidth || 900);
    } catch (e) {
      showError(e);
    }
  });
  $("offline").addEventListener("click", useOffline);
  $("ask").addEventListener("click", askModel);
  $("apply").addEventListener("click", apply);
  document.body.dataset.ready = "true";
}

main().catch(showError);
