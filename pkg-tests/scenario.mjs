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

// The binding-level parts of estimate: the per-message cache and the host's counter.
function runEstimateCases(api, messages) {
  const clone = (v) => JSON.parse(JSON.stringify(v)); // new objects: never seen by the cache
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const out = {};
  out.cache = attempt(() => {
    const history = clone(messages);
    const cold = api.estimate(history);
    const warm = api.estimate(history);
    const appended = [...history, { role: "user", content: "And now run the tests again, please." }];
    const warmAppended = api.estimate(appended);
    const coldAppended = api.estimate(clone(appended));
    // A cached tool result on its own is as wrong as a fresh one: same error, cache or not.
    const orphanIndex = history.findIndex((m) => m.role === "tool");
    const warmError = attempt(() => api.estimate([history[orphanIndex]])).error;
    const coldError = attempt(() => api.estimate([clone(history[orphanIndex])])).error;
    return {
      warmEqualsCold: same(cold, warm),
      appendedEqualsCold: same(warmAppended, coldAppended),
      appendedGrew: warmAppended.total > warm.total,
      orphanErrorsAlike: !!warmError && !!coldError && warmError.code === coldError.code && warmError.path === coldError.path,
    };
  });
  out.counter = attempt(() => {
    const seen = [];
    const counter = (text) => (seen.push(text), text.length);
    const small = [{ role: "user", content: "hello" }, { role: "assistant", content: "hi there" }];
    const first = api.estimate(small, { counter });
    const callsFirst = seen.length;
    const second = api.estimate(small, { counter });
    const callsOnSecond = seen.length - callsFirst;
    const history = clone(messages);
    const exact = api.estimate(history, { counter });
    const estimated = api.estimate(history);
    return {
      counted: first.counted,
      perMessage: first.perMessage,
      total: first.total,
      textsSeen: seen.slice(0, callsFirst),
      callsOnSecond,
      secondEqualsFirst: same(first, second),
      differsFromProfile: !same(exact.perMessage, estimated.perMessage),
    };
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

// Each case: what is called, then whether a valid call still works after the error.
function runErrorCases(api, valid) {
  const cases = {
    "estimate(\"nope\")": () => api.estimate("nope"),
    "estimate([{ content: \"x\" }])": () => api.estimate([{ content: "x" }]),
    "prune(messages, { protectTokens: \"a\" })": () => api.prune(valid, { protectTokens: "a" }),
    "estimate with a tool result for an unknown tool_call_id": () =>
      api.estimate([
        { role: "user", content: "hi" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "ok" },
        { role: "tool", tool_call_id: "call_unknown", content: "?" },
      ]),
  };
  return Object.fromEntries(
    Object.entries(cases).map(([name, call]) => {
      const thrown = attempt(call);
      const recovered = attempt(() => api.estimate(valid).total > 0);
      return [name, { threw: !thrown.ok, error: thrown.error ?? null, recovered: recovered.ok && recovered.value }];
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
