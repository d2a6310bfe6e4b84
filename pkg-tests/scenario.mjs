// The calls made on the installed package, shared by every runtime (Node ESM, Node CommonJS, workerd) so
// they all run exactly the same thing. It runs *inside* the runtime under test, because identity checks
// (`===` on unchanged messages) only mean something there, and returns a plain JSON report that
// checks.mjs asserts on the Node side. No imports: it must bundle into a Worker as is.

// Options per conversation: a small protected tail so pruning surely clears something on the long run.
// The plan's window is set from each conversation's own estimate (see runConversation), so compaction is
// surely needed whatever the conversation's size.
const OPTIONS = {
  tau: {},
  swe: { prune: { protectTokens: 2000, minimumPruneTokens: 500 } },
};
// Three quarters of the estimate: with the default threshold (0.8) and reserved output (a quarter of the
// window), the limit is 45% of the history.
const WINDOW_FRACTION = 0.75;

/** `api` holds the package's functions; `input` is `{ tau: { id, messages }, swe: { id, messages } }`. */
export function runScenario(api, input) {
  const conversations = {};
  for (const [key, { id, messages }] of Object.entries(input)) {
    conversations[key] = { id, messageCount: messages.length, ...runConversation(api, messages, OPTIONS[key]) };
  }
  return { conversations, errors: runErrorCases(api, input.tau.messages), estimateCases: runEstimateCases(api, input.swe.messages) };
}

// The binding-level part of estimate: the host's counter.
function runEstimateCases(api, messages) {
  const clone = (v) => JSON.parse(JSON.stringify(v));
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const out = {};
  out.unknownModel = attempt(() => {
    const guessed = api.estimate(messages, { model: "llama-3.1-70b", contextWindow: 100_000 });
    const known = api.estimate(messages, { model: "gpt-4.1-mini", contextWindow: 100_000 });
    return { warnings: guessed.warnings, tokenizer: guessed.tokenizer, knownWarnings: known.warnings ?? null, budget: guessed.budget, total: guessed.total };
  });
  out.counter = attempt(() => {
    const seen = [];
    const counter = (text) => (seen.push(text), text.length);
    const small = [{ role: "user", content: "hello" }, { role: "assistant", content: "hi there" }];
    const first = api.estimate(small, { counter });
    const callsFirst = seen.length;
    const second = api.estimate(small, { counter });
    const history = clone(messages);
    const exact = api.estimate(history, { counter });
    const estimated = api.estimate(history);
    return {
      counted: first.counted,
      perMessage: first.perMessage,
      total: first.total,
      textsSeen: seen.slice(0, callsFirst),
      secondEqualsFirst: same(first, second),
      differsFromProfile: !same(exact.perMessage, estimated.perMessage),
    };
  });
  out.vectorScan = attempt(() => {
    // Plain ASCII is scanned 16 bytes at a time by vector comparisons (SIMD128 in the wasm), anything with a
    // control byte one byte at a time by a table. A control such as U+0001 counts for nothing and ends no
    // run, so the same text with one every 7 bytes goes the second way and must be estimated the same.
    const pieces = ["the", " ", "Quick", "fooBar", "x", "internationalization", "12", "3456789", ".", ",", "->", "{\"", "  ", "\t", "\n", "\n\n", "_id", "/usr", "ALLCAPS", ":", ";", " (", ")", "é", "~"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const differing = [];
    for (let t = 0; t < 64; t++) {
      let text = "";
      while (text.length < 1500) text += pieces[Math.floor(next() * pieces.length)] + (next() < 0.5 ? " " : "");
      const slow = text.replace(/(.{7})/gsu, "$1\u0001");
      const [a, b] = [text, slow].map((content) => api.estimate([{ role: "user", content }]).total);
      if (a !== b) differing.push({ text: text.slice(0, 80), vector: a, table: b });
    }
    return { texts: 64, differing };
  });
  const boom = new Error("boom from the counter");
  const thrown = attempt(() => api.estimate([{ role: "user", content: "x" }], { counter: () => { throw boom; } }));
  out.counterThrows = { sameError: !thrown.ok && thrown.raw === boom, recovered: attempt(() => api.estimate(messages).total > 0).value === true };
  const nan = attempt(() => api.estimate([{ role: "user", content: "y" }], { counter: () => NaN }));
  out.counterNaN = { error: nan.error ?? null, recovered: attempt(() => api.estimate([{ role: "user", content: "y" }], { counter: (t) => t.length }).total > 0).value === true };
  return out;
}

function runConversation(api, messages, { prune, plan: planOptions }) {
  const out = { estimate: attempt(() => estimateFacts(api, messages)) };
  if (!out.estimate.ok) return out;
  const options = { prune, plan: { contextWindow: Math.ceil(out.estimate.value.total * WINDOW_FRACTION), ...planOptions } };
  if (options.prune) out.prune = attempt(() => pruneFacts(api, messages, options.prune));
  let plan;
  out.plan = attempt(() => {
    plan = api.plan_compaction(messages, options.plan);
    return planFacts(api, messages, options.plan, plan);
  });
  if (out.plan.ok) out.apply = attempt(() => applyFacts(api, messages, plan));
  return out;
}

function estimateFacts(api, messages) {
  const est = api.estimate(messages);
  return {
    total: est.total,
    format: est.format,
    perMessageLength: est.perMessage.length,
    perMessageSum: est.perMessage.reduce((a, b) => a + b, 0),
    requestOverhead: est.requestOverhead,
  };
}

function pruneFacts(api, messages, options) {
  const before = JSON.stringify(messages);
  const res = api.prune(messages, options);
  const prunedAt = new Set(res.pruned.map((p) => p.index));
  const again = api.prune(res.messages, options);
  return {
    messageCountAfter: res.messages.length,
    prunedCount: res.pruned.length,
    tokensBefore: res.tokensBefore,
    tokensAfter: res.tokensAfter,
    unchangedAreSameObjects: res.messages.every((m, i) => prunedAt.has(i) || m === messages[i]),
    changedAreCopies: [...prunedAt].every((i) => res.messages[i] !== messages[i]),
    prunedAreToolResults: res.pruned.every(
      (p) => messages[p.index]?.role === "tool" && messages[p.index].tool_call_id === p.toolCallId,
    ),
    inputUntouched: JSON.stringify(messages) === before,
    // DESIGN invariant 4: pruning twice equals pruning once.
    idempotent: JSON.stringify(again.messages) === JSON.stringify(res.messages),
  };
}

function planFacts(api, messages, options, plan) {
  const again = api.plan_compaction(messages, options);
  return {
    needed: plan.needed,
    reason: plan.reason,
    jobs: plan.jobs.map((j) => ({
      id: j.id,
      systemLength: typeof j.prompt?.system === "string" ? j.prompt.system.length : -1,
      userLength: typeof j.prompt?.user === "string" ? j.prompt.user.length : -1,
      maxOutputTokens: j.maxOutputTokens,
    })),
    fingerprintType: typeof plan.fingerprint,
    fingerprintLength: String(plan.fingerprint ?? "").length,
    // DESIGN: "the same input and options give byte-identical plans and prompts".
    deterministic: JSON.stringify(again) === JSON.stringify(plan),
  };
}

function applyFacts(api, messages, plan) {
  const before = JSON.stringify(messages);
  const summary = api.summarize_offline(messages, plan);
  const res = api.apply_summary(messages, plan, summary);
  const systems = messages.filter((m) => m.role === "system");
  const systemsAfter = res.messages.filter((m) => systems.includes(m));
  return {
    summaryKeys: Object.keys(summary),
    summariesNonEmpty: Object.values(summary).every((s) => typeof s === "string" && s.trim().length > 0),
    tokensBefore: res.tokensBefore,
    tokensAfter: res.tokensAfter,
    messageCountAfter: res.messages.length,
    toolPairingProblems: toolPairingProblems(res.messages),
    systemCount: systems.length,
    systemsKeptSameObjectsInOrder: systemsAfter.length === systems.length && systemsAfter.every((m, i) => m === systems[i]),
    inputUntouched: JSON.stringify(messages) === before,
    hasAudit: res.audit !== undefined && res.audit !== null,
    warningsIsArray: Array.isArray(res.warnings),
    probe: probeFacts(api, messages, plan),
  };
}

/** `quality_probe`'s questions for the plan: each blanks its answer, which the summarized messages hold. */
function probeFacts(api, messages, plan) {
  const { questions } = api.quality_probe(messages, plan, 5);
  const summarized = new Set(plan.summarize.flatMap((r) => Array.from({ length: r.end - r.start }, (_, k) => r.start + k)));
  return {
    count: questions.length,
    blanked: questions.every((q) => q.question.includes("____") && !q.question.includes(q.answer)),
    fromSummarized: questions.every((q) => summarized.has(q.message) && JSON.stringify(messages[q.message]).includes(JSON.stringify(q.answer).slice(1, -1))),
    deterministic: JSON.stringify(api.quality_probe(messages, plan, 5)) === JSON.stringify({ questions }),
  };
}

/** OpenAI Chat validity: each tool call answered by exactly one `role:"tool"` message after it (and before
 * the id is used again, as real histories do once a call is answered); no orphan results. */
function toolPairingProblems(messages) {
  const problems = [];
  const called = new Set();
  const callsOf = (m) => (m.role === "assistant" && m.tool_calls) || [];
  messages.forEach((m, i) => {
    if (m.role === "tool" && !called.has(m.tool_call_id)) {
      problems.push(`messages[${i}] answers tool_call_id ${m.tool_call_id}, which no earlier assistant called`);
    }
    for (const call of callsOf(m)) {
      called.add(call.id);
      const rest = messages.slice(i + 1);
      const reused = rest.findIndex((r) => callsOf(r).some((c) => c.id === call.id));
      const window = reused < 0 ? rest : rest.slice(0, reused);
      const answers = window.filter((r) => r.role === "tool" && r.tool_call_id === call.id).length;
      if (answers !== 1) problems.push(`messages[${i}] calls ${call.id}, answered ${answers} times after it`);
    }
  });
  return problems;
}

// Hostile input: each case builds its arguments, calls the package, and must throw an Error with the
// expected stable code and path, leave its arguments unchanged, and leave the module working. `valid` is
// a real conversation; plans are made inside the case so each runtime checks its own.
const call = (id) => ({ id, type: "function", function: { name: "f", arguments: "{}" } });
export const HOSTILE = [
  { name: "messages is a string", code: "INVALID_INPUT", path: "messages", args: () => ["nope"], run: (api, a) => api.estimate(...a) },
  { name: "messages is a number", code: "INVALID_INPUT", path: "messages", args: () => [42], run: (api, a) => api.prune(...a) },
  { name: "messages is null", code: "INVALID_INPUT", path: "messages", args: () => [null], run: (api, a) => api.plan_compaction(...a) },
  { name: "a message is null", code: "INVALID_INPUT", path: "messages[0]", args: () => [[null]], run: (api, a) => api.estimate(...a) },
  { name: "a message without a role", code: "INVALID_INPUT", path: "messages[0].role", args: () => [[{ content: "x" }]], run: (api, a) => api.estimate(...a) },
  { name: "a role that is a number", code: "INVALID_INPUT", path: "messages[0].role", args: () => [[{ role: 7, content: "x" }]], run: (api, a) => api.estimate(...a) },
  { name: "an unknown role", code: "INVALID_INPUT", path: "messages[0].role", args: () => [[{ role: "wizard", content: "x" }]], run: (api, a) => api.estimate(...a) },
  { name: "content that is a number", code: "INVALID_INPUT", path: "messages[0].content", args: () => [[{ role: "user", content: 5 }]], run: (api, a) => api.estimate(...a) },
  { name: "two waiting tool calls with one id", code: "INVALID_INPUT", path: "messages[1].tool_calls[1].id",
    args: () => [[{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [call("c1"), call("c1")] }]], run: (api, a) => api.prune(...a) },
  { name: "a tool result before its call", code: "INVALID_INPUT", path: "messages[0].tool_call_id",
    args: () => [[{ role: "tool", tool_call_id: "c1", content: "ok" }, { role: "assistant", content: null, tool_calls: [call("c1")] }]], run: (api, a) => api.estimate(...a) },
  { name: "a tool result for an unknown tool_call_id", code: "INVALID_INPUT", path: "messages[3].tool_call_id",
    args: () => [[{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [call("call_1")] },
      { role: "tool", tool_call_id: "call_1", content: "ok" }, { role: "tool", tool_call_id: "call_unknown", content: "?" }]], run: (api, a) => api.estimate(...a) },
  { name: "two formats mixed", code: "INVALID_INPUT", path: "messages[1]",
    args: () => [[{ role: "user", content: "hi" }, { role: "model", parts: [{ text: "hello" }] }]], run: (api, a) => api.estimate(...a) },
  { name: "a circular message", code: "INVALID_INPUT", path: "messages[0]",
    args: () => { const m = { role: "user", content: "x" }; m.self = m; return [[m]]; }, run: (api, a) => api.estimate(...a) },
  { name: "content nested 100 000 levels deep", code: "INVALID_INPUT", path: "messages[0]",
    args: () => { let d = []; for (let i = 0; i < 100000; i++) d = [d]; return [[{ role: "user", content: d }]]; }, run: (api, a) => api.estimate(...a) },
  { name: "a 100 MB string", code: "INPUT_TOO_LARGE", path: "messages",
    args: () => [[{ role: "user", content: "x".repeat(100 * 1024 * 1024) }]], run: (api, a) => api.estimate(...a) },
  { name: "a lone UTF-16 surrogate", code: "INVALID_INPUT", path: "messages[1]", says: /lone UTF-16 surrogate/,
    args: () => [[{ role: "user", content: "fine" }, { role: "user", content: "broken \ud800 text" }]], run: (api, a) => api.estimate(...a) },
  { name: "a getter that throws", code: "INVALID_INPUT", path: "messages[1]",
    args: () => [[{ role: "user", content: "hi" }, { role: "assistant", get content() { throw new Error("boom"); } }]], run: (api, a) => api.estimate(...a) },
  { name: "an option of the wrong type", code: "INVALID_OPTION", path: "options.protectTokens", args: (v) => [v, { protectTokens: "a" }], run: (api, a) => api.prune(...a) },
  { name: "a NaN option", code: "INVALID_OPTION", path: "options.contextWindow", args: (v) => [v, { contextWindow: NaN }], run: (api, a) => api.estimate(...a) },
  { name: "an Infinity option", code: "INVALID_OPTION", path: "options.threshold", args: (v) => [v, { threshold: Infinity }], run: (api, a) => api.plan_compaction(...a) },
  { name: "a negative option", code: "INVALID_OPTION", path: "options.reservedOutput", args: (v) => [v, { reservedOutput: -1 }], run: (api, a) => api.plan_compaction(...a) },
  { name: "an unknown preset", code: "INVALID_OPTION", path: "options.preset", args: (v) => [v, { preset: "cursor" }], run: (api, a) => api.plan_compaction(...a) },
  { name: "a pin that is not an index", code: "INVALID_OPTION", path: "options.pin[1]", args: (v) => [v, { pin: [1, -2] }], run: (api, a) => api.plan_compaction(...a) },
  { name: "nothing left to compact but summaries", code: "CANNOT_COMPACT_FURTHER", path: "messages",
    args: () => [[{ role: "user", content: `<ctxfold-summary covers="#0-#99">\nx\n\n${"fact ".repeat(3000)}\n</ctxfold-summary>` }, { role: "user", content: "go on" }]],
    run: (api, a) => api.plan_compaction(...a, { preset: "claude-code", contextWindow: 4000 }) },
  { name: "a misspelt option", code: "INVALID_OPTION", path: "options.contextWindw", args: (v) => [v, { contextWindw: 5 }], run: (api, a) => api.estimate(...a) },
  { name: "options that are a string", code: "INVALID_OPTION", path: "options", args: (v) => [v, "fast"], run: (api, a) => api.estimate(...a) },
  { name: "a plan from another conversation", code: "STALE_PLAN", path: "messages",
    args: (v) => [v, v.map((m, i) => (i === 1 ? { ...m, content: "a different question" } : m))], run: (api, [v, other]) => api.apply_summary(v, api.plan_compaction(other, { force: true, keepRecentTurns: 1 }), "summary") },
  { name: "a plan edited by hand", code: "INVALID_PLAN", path: "plan",
    args: (v) => [v], run: (api, [v]) => { const p = api.plan_compaction(v, { force: true, keepRecentTurns: 1 }); p.summarize[0].end -= 1; return api.apply_summary(v, p, "summary"); } },
  { name: "a plan that is not a plan", code: "INVALID_PLAN", path: "plan", args: (v) => [v, "plan"], run: (api, a) => api.apply_summary(...a, "summary") },
  { name: "a plan that needs nothing", code: "NOTHING_TO_APPLY", path: "plan.jobs",
    args: (v) => [v], run: (api, [v]) => api.apply_summary(v, api.plan_compaction(v), "summary") },
  { name: "an empty summary", code: "SUMMARY_EMPTY", path: "summary.summary-1",
    args: (v) => [v], run: (api, [v]) => api.apply_summary(v, api.plan_compaction(v, { force: true, keepRecentTurns: 1 }), " \n ") },
  { name: "a summary larger than what it replaces", code: "SUMMARY_NOT_SMALLER", path: "summary",
    args: (v) => [v], run: (api, [v]) => api.apply_summary(v, api.plan_compaction(v, { force: true, keepRecentTurns: 1 }), "word ".repeat(200000)) },
  { name: "a summary that is a number", code: "INVALID_INPUT", path: "summary",
    args: (v) => [v], run: (api, [v]) => api.apply_summary(v, api.plan_compaction(v, { force: true, keepRecentTurns: 1 }), 42) },
];

/** What a value looks like, to tell whether a call changed it (circular and huge values included). */
function snapshot(value) {
  const seen = new WeakSet();
  try {
    const text = JSON.stringify(value, (k, v) => {
      if (typeof v === "object" && v !== null) {
        if (seen.has(v)) return "[circular]";
        seen.add(v);
      }
      return typeof v === "string" && v.length > 4096 ? `[${v.length} chars]` : v;
    });
    return text;
  } catch {
    return "[too deep to print: compared by identity]";
  }
}

function runErrorCases(api, valid) {
  return Object.fromEntries(
    HOSTILE.map(({ name, args, run }) => {
      const a = args(valid);
      const before = snapshot(a);
      const items = a.map((x) => (Array.isArray(x) ? [...x] : x));
      const thrown = attempt(() => run(api, a));
      const unchanged = snapshot(a) === before && a.every((x, i) => !Array.isArray(x) || x.every((m, k) => m === items[i][k]));
      const recovered = attempt(() => api.estimate(valid).total > 0);
      return [name, { threw: !thrown.ok, error: thrown.error ?? null, unchanged, recovered: recovered.ok && recovered.value }];
    }),
  );
}

function attempt(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    return { ok: false, error: describeError(e), raw: e };
  }
}

function describeError(e) {
  return {
    isError: e instanceof Error,
    code: e?.code,
    path: e?.path,
    message: String(e?.message ?? e),
    stack: String(e?.stack ?? "").split("\n").slice(0, 4).join("\n"),
  };
}
