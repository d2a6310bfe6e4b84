// The summarizer client and `compact`, exercised inside the runtime under test (Node, workerd,
// Chromium) against the local test server (llm-server.mjs) at `server`. Like scenario.mjs it has no
// imports, so it bundles into a Worker or a page as is, and it returns a plain JSON report that
// client-checks.mjs asserts on; the server's own record of what it received is checked there too.

/** A key that must never show up in an error: client-checks.mjs searches every report for it. */
export const API_KEY = "sk-test-9f8e7d6c5b4a-never-show-me";
/** An address where nothing listens. */
const REFUSED = "http://127.0.0.1:2/v1";
export const PROMPT = { system: "You summarize.", user: "The conversation.", maxOutputTokens: 321, jobId: "job-1" };

export async function runClientScenario(api, server, messages) {
  const cases = {};
  const run = async (name, fn) => {
    try {
      cases[name] = { ok: true, value: await fn() };
    } catch (e) {
      cases[name] = { ok: false, error: describe(e) };
    }
  };
  const openai = (route, extra = {}) => api.openai_summarizer({ baseUrl: `${server}/${route}/v1`, apiKey: API_KEY, model: "test-model", ...extra });

  await run("openai: summary text", () => openai("ok", { headers: { "x-extra": "yes" } })(PROMPT));
  await run("anthropic: summary text", () =>
    api.anthropic_summarizer({ baseUrl: `${server}/ok`, apiKey: API_KEY, model: "claude-test" })(PROMPT));
  await run("openai: HTTP 401", () => openai("status/401")(PROMPT));
  await run("anthropic: HTTP 529", () => api.anthropic_summarizer({ baseUrl: `${server}/status/529`, apiKey: API_KEY, model: "c" })(PROMPT));
  await run("openai: not JSON", () => openai("garbage")(PROMPT));
  await run("openai: timeout", () => openai("slow", { timeoutMs: 300 })(PROMPT));
  await run("openai: a body that stalls", () => openai("stall", { timeoutMs: 300 })(PROMPT));
  // Port 2 on loopback: nothing listens there, so the connection is refused at once (port 9, say, is on the
  // fetch standard's list of blocked ports, refused before any connection is tried).
  await run("openai: connection refused", () =>
    api.openai_summarizer({ baseUrl: REFUSED, apiKey: API_KEY, model: "m" })(PROMPT));
  // A polyfilled fetch that misbehaves must give an error, not abort the module (a panic in the wasm would).
  await run("a fetch that resolves to a non-Response", () => withFetch(async () => ({ status: 200 }), () => openai("ok")(PROMPT)));
  await run("a fetch that rejects with a string", () => withFetch(() => Promise.reject("offline"), () => openai("ok")(PROMPT)));
  // A polyfill's own response (or another realm's) is read like a Response.
  const polyfilled = { status: 200, statusText: "OK", text: async () => JSON.stringify({ choices: [{ message: { content: "from the polyfill" } }] }) };
  await run("a fetch polyfill's own response", () => withFetch(async () => polyfilled, () => openai("ok")(PROMPT)));
  await run("the module still works afterwards", () => api.estimate(messages).total > 0);
  await run("openai: a reasoning model gets max_completion_tokens and the extra body fields", () =>
    openai("openai", { model: "o3-mini", body: { reasoning_effort: "low" } })(PROMPT));
  await run("openai: max_tokens forced on a reasoning model is refused as OpenAI refuses it", () =>
    openai("openai", { model: "gpt-5-mini", maxTokensField: "max_tokens" })(PROMPT));
  await run("anthropic: extra body fields beside max_tokens", () =>
    api.anthropic_summarizer({ baseUrl: `${server}/anthropic`, apiKey: API_KEY, model: "claude-test", body: { temperature: 0 } })(PROMPT));
  await run("openai: bad configuration", () => api.openai_summarizer({ apiKey: API_KEY, model: "m" }));
  await run("openai: bad prompt", () => openai("ok")({ system: "s" }));

  // compact: the window is set from the conversation's own estimate, so a compaction is surely needed.
  const contextWindow = Math.ceil(api.estimate(messages).total * 0.75);
  const before = JSON.stringify(messages);
  await run("compact: with the model", async () => compactFacts(messages, await api.compact(messages, { contextWindow, summarize: openai("ok") })));
  await run("compact: model fails, offline digest", async () =>
    compactFacts(messages, await api.compact(messages, { contextWindow, summarize: openai("status/500") })));
  await run("compact: model fails, truncated with a notice", async () =>
    compactFacts(messages, await api.compact(messages, { contextWindow, fallback: "truncate", summarize: openai("status/500") })));
  await run("compact: fallback none passes the host's error through", async () => {
    const mine = new Error("the host's own failure");
    try {
      await api.compact(messages, { contextWindow, fallback: "none", summarize: async () => { throw mine; } });
      return { threw: false };
    } catch (e) {
      return { threw: true, same: e === mine };
    }
  });
  await run("compact: not needed", async () => {
    const res = await api.compact(messages, { contextWindow: 10_000_000, summarize: () => { throw new Error("must not be called"); } });
    return { compacted: res.compacted, jobs: res.jobs.length, sameObjects: res.messages.every((m, i) => m === messages[i]), count: res.messages.length };
  });
  await run("compact: the host's array changes while the summary is written", async () => {
    const mine = [...messages];
    const res = await api.compact(mine, {
      contextWindow,
      summarize: async () => {
        mine.reverse();
        mine.push({ role: "user", content: "appended meanwhile" });
        return "A short summary of the earlier work.";
      },
    });
    const isSummary = (m) => typeof m.content === "string" && m.content.startsWith("<ctxfold-summary");
    const kept = res.messages.filter((m) => !isSummary(m));
    return {
      keptAreInputObjectsInOrder: kept.every((m, i) => i === 0 || messages.indexOf(m) > messages.indexOf(kept[i - 1])) && kept.every((m) => messages.includes(m)),
      lastIsTheOriginalLast: res.messages.at(-1) === messages.at(-1),
    };
  });
  await run("compact: several jobs, two at a time, with progress", async () => {
    let inFlight = 0;
    let most = 0;
    const progress = [];
    const res = await api.compact(messages, {
      contextWindow, strategy: "hierarchical", chunkMessages: 6, concurrency: 2,
      onProgress: (p) => progress.push(p),
      summarize: async (prompt) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        // Later jobs settle first: the result must still follow the plan's order.
        await new Promise((resolve) => setTimeout(resolve, 40 - 2 * Number(prompt.jobId.split("-")[1])));
        inFlight -= 1;
        return `Summary of ${prompt.jobId}.`;
      },
    });
    const summary = res.messages.map((m) => (typeof m.content === "string" ? m.content : "")).find((c) => c.startsWith("<ctxfold-summary")) ?? "";
    return {
      jobs: res.plan.jobs.length,
      most,
      progressDone: progress.map((p) => p.done),
      progressTotals: [...new Set(progress.map((p) => p.total))],
      jobsInPlanOrder: res.jobs.map((j) => j.id).join() === res.plan.jobs.map((j) => j.id).join(),
      summariesInPlanOrder: res.plan.jobs.every((j, i, all) => i === 0 || summary.indexOf(`Summary of ${all[i - 1].id}.`) < summary.indexOf(`Summary of ${j.id}.`)),
    };
  });
  await run("compact: prunes first", async () => {
    const options = { contextWindow, protectTokens: 300, minimumPruneTokens: 100 };
    const res = await api.compact(messages, { ...options, summarize: async () => "A short summary of the earlier work." });
    const pruned = api.prune(messages, options);
    return {
      pruned: res.pruned.length,
      samePruned: JSON.stringify(res.pruned) === JSON.stringify(pruned.pruned),
      tokensBeforeIsTheEstimate: res.tokensBefore === api.estimate(messages, options).total,
      planMadeAfterPruning: res.plan.tokensBefore === api.estimate(pruned.messages, options).total,
      smaller: res.tokensAfter < res.tokensBefore,
    };
  });
  // A summarizer that loses every fact at first, and restores what the revision prompt lists when asked again.
  const revisions = async (options, revise) => {
    const prompts = [];
    const res = await api.compact(messages, {
      contextWindow, prune: false, ...options,
      summarize: async (prompt) => {
        prompts.push(prompt);
        if (!prompt.revision) return "The user and the assistant worked on the task.";
        return revise(prompt);
      },
    });
    const summary = res.messages.map((m) => (typeof m.content === "string" ? m.content : "")).find((c) => c.startsWith("<ctxfold-summary")) ?? "";
    return {
      calls: prompts.length,
      revisionPrompts: prompts.filter((p) => p.revision).length,
      revisionPromptListsFacts: prompts.filter((p) => p.revision).every((p) => / \(message #\d+\): /.test(p.user)),
      jobs: res.jobs.map((j) => ({ source: j.source, revisions: j.revisions, revisionError: j.revisionError === undefined ? null : describe(j.revisionError) })),
      missing: res.audit.factsMissing.length,
      summaryHasRevisedText: summary.includes("Restored:"),
    };
  };
  // The facts the revision prompt lists, one per line after "(message #N): ".
  const restoring = (prompt) => `The user and the assistant worked on the task. Restored: ${prompt.user.split("\n").filter((l) => / \(message #\d+\): /.test(l)).map((l) => l.split("): ").slice(1).join("): ")).join("; ")}`;
  await run("compact: a revision round restores the facts a summary lost", () => revisions({ keepFacts: false, keepUserText: false }, restoring));
  await run("compact: a revision that keeps no more is not taken", () => revisions({ keepFacts: false, keepUserText: false }, () => "Worked on it."));
  await run("compact: maxRevisions 0 asks once", () => revisions({ keepFacts: false, keepUserText: false, maxRevisions: 0 }, restoring));
  await run("compact: a failed revision leaves the first summary", () =>
    revisions({ keepFacts: false, keepUserText: false, fallback: "none" }, () => { throw new Error("revision failed"); }));
  await run("compact: maxRevisions out of range", () => api.compact(messages, { contextWindow, maxRevisions: 9, summarize: () => "s" }));
  // Every way a summarizer fails is heard of: a warning, `onFallback`, and an error that serializes with its message.
  const failing = {
    "HTTP 400": openai("status/400"),
    "HTTP 401": openai("status/401"),
    "HTTP 500": openai("status/500"),
    "connection refused": api.openai_summarizer({ baseUrl: REFUSED, apiKey: API_KEY, model: "m" }),
    timeout: openai("slow", { timeoutMs: 300 }),
  };
  for (const [name, summarize] of Object.entries(failing)) {
    await run(`compact: a summarizer failing with ${name} is heard of`, async () => {
      const heard = [];
      const res = await api.compact(messages, { contextWindow, summarize, onFallback: (f) => heard.push(f) });
      return {
        jobs: res.jobs.length,
        sources: res.jobs.map((j) => j.source),
        heard: heard.map((f) => ({ jobId: f.jobId, source: f.source, code: f.error?.code, sameError: f.error === res.jobs.find((j) => j.id === f.jobId)?.error })),
        warnings: res.warnings.filter((w) => w.includes("the summarizer failed")),
        serialized: JSON.stringify(res.jobs),
        causeText: describe(res.jobs[0].error?.cause ?? null).message,
      };
    });
  }
  await run("compact: onFallback must be a function", () => api.compact(messages, { contextWindow, onFallback: "log", summarize: () => "s" }));
  await run("compact: no summarize", () => api.compact(messages, { contextWindow }));
  const inputUntouched = JSON.stringify(messages) === before;
  return { cases, inputUntouched };
}

async function withFetch(replacement, fn) {
  const original = globalThis.fetch;
  globalThis.fetch = replacement;
  try {
    return await fn();
  } finally {
    globalThis.fetch = original;
  }
}

function compactFacts(messages, res) {
  const kept = res.messages.filter((m) => messages.includes(m)).length;
  return {
    compacted: res.compacted,
    tokensBefore: res.tokensBefore,
    tokensAfter: res.tokensAfter,
    messageCount: res.messages.length,
    keptSameObjects: kept,
    summaryText: res.messages.map((m) => (typeof m.content === "string" ? m.content : "")).find((c) => c.startsWith("<ctxfold-summary")) ?? null,
    jobs: res.jobs.map((j) => ({ id: j.id, source: j.source, error: j.error === undefined ? null : describe(j.error) })),
    planJobIds: res.plan.jobs.map((j) => j.id),
    hasAudit: typeof res.audit?.summarizedMessages === "number",
  };
}

function describe(e) {
  const own = e && typeof e === "object" ? Object.fromEntries(Object.entries(e)) : {};
  return {
    isError: e instanceof Error,
    name: e?.name,
    code: e?.code,
    path: e?.path,
    status: e?.status,
    message: String(e?.message ?? e),
    // What the runtime threw beneath ours: its name, or the value itself.
    cause: e?.cause === undefined ? undefined : String(e.cause?.name ?? e.cause),
    // Everything the error carries, to search for the key.
    everything: `${e?.message} ${e?.stack} ${JSON.stringify(own)}`,
  };
}
