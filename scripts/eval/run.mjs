// `npm run eval`: how much of what a conversation said survives compaction, measured on real conversations
// without an LLM judge. See README.md here for the method. Flags:
//   --base-url URL --model NAME [--api-key KEY] [--context-size N]   use that OpenAI-compatible endpoint
//                                                                     (default: start scripts/local-model.mjs)
//   --model NAME   without --base-url: which local model (smollm2-135m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b)
//   --per-group N (2)  --seed S (1)  --questions N (5)  --groups a,b,...  --quick  --out FILE
//   --conversations id,id,...   of the selection, only these (each as the selection has it: the same budget and
//                               questions); to ask a model about just the histories a change moves
//   --resume   keep the conversations an unfinished report at --out already has (same model and flags)
//   --options JSON   ctxfold's options for its conditions, over the defaults (to compare settings on the
//                    same questions: the questions still come from the default plan)
//   --summaries digest|minimal   no model: every summary is ctxfold's offline digest, or one sentence that keeps
//                                nothing (what ctxfold guarantees whatever the model); no question is asked, and
//                                the report says which answers are still written in each history
//   --probe   the questions are those of ctxfold's `quality_probe` for the plan, as a host would ask them,
//             instead of the eval's own
//   --cache DIR   keep the model's answers in DIR and take them from there when the same request comes again
//                 (cache.mjs): comparing settings then costs only the requests that changed
//   --transcripts DIR   write every history as the model reads it, one file per conversation and condition
//                       (`<id>.<condition>.txt`): where to look when an answer in the history was not given
//   --replay REPORT   no model: the run of REPORT (a model's; its model, flags and token ratios) again, with every
//                     summary and answer taken from --cache; a request not there is not asked (a summary falls
//                     back to the offline digest, a question is n/a). For a change to what ctxfold does after the
//                     summary, the in-text and in-context columns in seconds; --options may change the settings
//   --retest   ask each question of the original history a second time, worded differently at its end
//              (`WORDINGS` in ask.mjs): the share of the original's answers the model gives again is how far
//              any history can be expected to match the original's, this model's noise
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compact, estimate, openai_summarizer, validate } from "ctxfold";
import { ANSWER_TOKENS, Overflow, askMessages, complete, countTokens } from "./ask.mjs";
import { truncateTo } from "./baselines.mjs";
import { NotCached, answerCache } from "./cache.mjs";
import { pickGroups } from "./groups.mjs";
import { inContext, matches } from "./match.mjs";
import { textOf } from "./messages.mjs";
import { openEndpoint } from "./model.mjs";
import { COMPACTED, CONDITIONS, summarize, table } from "./report.mjs";
import { select } from "./select.mjs";
import { transcript } from "./transcript.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
/**
 * How many of the model's tokens one of ctxfold's estimated tokens is taken to be when the endpoint does not say
 * (see countTokens): ctxfold estimates with an OpenAI profile, and other tokenizers count the same text higher.
 */
const DEFAULT_TOKEN_RATIO = 1.25;
/** Of the model's window, the share the summary request is sized to: room for the ratio's own error. */
const SUMMARIZER_SHARE = 0.9;
/** A slow CPU takes minutes over a long summary: the built-in client's 60 s default would turn it into a fallback. */
const SUMMARY_TIMEOUT_MS = 30 * 60_000;
/** The summary text kept in the report, at most (characters). */
const SUMMARY_TEXT_CHARS = 6000;
/**
 * Groups of the quick run: a tool-calling agent and a Chinese chat, the cheapest to ask. ToolBench rather than
 * tau-bench: its runs are shorter (1K to 4K tokens against 4K to 6K; the runs drawn, 1 925 against 4 890), and
 * reading a summary prompt is most of a small model's time on a CPU (the tau-bench run took 294 s of the quick
 * run's 407, the ToolBench run 101 s; SmolLM2-135M on two cores).
 */
const QUICK_GROUPS = "toolbench,kdconv-zh";
/**
 * ctxfold without what it adds after the model's summary (the quotes of the user's messages, the facts it lost, the
 * revision round): the summary as the model wrote it, to measure what those add.
 */
const PLAIN = { keepUserText: false, keepFacts: false, maxRevisions: 0 };

function parseFlags(argv) {
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${arg}`);
    const name = arg.slice(2);
    if (["quick", "resume", "probe", "retest"].includes(name)) flags[name] = true;
    else if (i + 1 < argv.length) flags[name] = argv[++i];
    else throw new Error(`${arg} needs a value`);
  }
  const known = ["base-url", "model", "api-key", "context-size", "per-group", "seed", "questions", "groups", "conversations", "quick", "out", "resume", "summaries", "options", "probe", "cache", "transcripts", "retest", "replay"];
  for (const name of Object.keys(flags)) if (!known.includes(name)) throw new Error(`unknown flag --${name}; known: ${known.map((k) => `--${k}`).join(" ")}`);
  if (flags.replay) {
    if (!flags.cache) throw new Error("--replay needs --cache: the summaries and answers come from there");
    const fromReport = ["base-url", "model", "api-key", "context-size", "per-group", "seed", "questions", "groups", "conversations", "quick", "resume", "summaries", "probe", "retest"];
    for (const name of fromReport) if (name in flags) throw new Error(`--replay takes --${name} from the report it replays`);
  }
  const number = (name, fallback) => {
    if (flags[name] === undefined) return fallback;
    const n = Number(flags[name]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number`);
    return n;
  };
  const summaries = flags.summaries ?? "model";
  if (!["model", "digest", "minimal"].includes(summaries)) throw new Error("--summaries must be model, digest or minimal");
  if (summaries !== "model" && flags["base-url"]) throw new Error("--summaries digest|minimal asks no model: drop --base-url");
  let options = {};
  try {
    options = JSON.parse(flags.options ?? "{}");
  } catch (error) {
    throw new Error(`--options must be a JSON object: ${error.message}`);
  }
  return {
    summaries,
    options,
    baseUrl: flags["base-url"], model: flags.model, apiKey: flags["api-key"], contextSize: number("context-size", undefined),
    quick: Boolean(flags.quick),
    resume: Boolean(flags.resume),
    probe: Boolean(flags.probe),
    retest: Boolean(flags.retest),
    // Two per group and five questions each: about half an hour on two CPU cores with the local model.
    perGroup: number("per-group", flags.quick ? 1 : 2),
    seed: number("seed", 1),
    questions: number("questions", flags.quick ? 2 : 5),
    groups: flags.groups ?? (flags.quick ? QUICK_GROUPS : undefined),
    conversations: flags.conversations && flags.conversations.split(",").filter(Boolean),
    out: resolve(flags.out ?? join(root, "target", "eval", "report.json")),
    cache: flags.cache && resolve(flags.cache),
    transcripts: flags.transcripts && resolve(flags.transcripts),
    replay: flags.replay && resolve(flags.replay),
    optionsGiven: flags.options !== undefined,
  };
}

/** An error as JSON: its code (ctxfold's and the clients') and message. */
const errorJson = (e) => (e === undefined ? undefined : { code: e?.code ?? e?.name ?? "Error", status: e?.status, message: String(e?.message ?? e).slice(0, 300) });

/** A summary that keeps nothing of what it replaced: `--summaries minimal`. */
const MINIMAL_SUMMARY = "The user and the assistant worked on the task.";

/** The summarizer of a run without a model: the offline digest (compact's fallback for a failed call) or the minimal one. */
function standIn(kind) {
  return kind === "minimal" ? async () => MINIMAL_SUMMARY : async () => { throw new Error("no model in this run: the offline digest stands in"); };
}

/** `compact` through the endpoint (or the run's stand-in), with each summary call timed. */
async function compacted(messages, options, endpoint) {
  const client = endpoint.standIn ?? (endpoint.replayed ? null : openai_summarizer({ baseUrl: endpoint.baseUrl, model: endpoint.model, apiKey: endpoint.apiKey, timeoutMs: SUMMARY_TIMEOUT_MS }));
  const summaryMs = [];
  const summarize = async (prompt) => {
    const started = performance.now();
    try {
      const asked = async () => ({ text: await client(prompt), ms: performance.now() - started });
      const answer = endpoint.standIn ? await asked() : await endpoint.cache("summary", prompt, asked);
      summaryMs.push(answer.ms);
      return answer.text;
    } catch (error) {
      summaryMs.push(performance.now() - started);
      throw error;
    }
  };
  // The window in ctxfold's estimated tokens that is the model's window in its own.
  const summarizerWindow = endpoint.standIn ? undefined : Math.floor((endpoint.contextSize * SUMMARIZER_SHARE) / endpoint.tokenRatio);
  const result = await compact(messages, { ...options, ...(summarizerWindow && { summarizerWindow }), summarize });
  const audit = result.audit && {
    checked: result.audit.factsChecked, kept: result.audit.factsKept.length, missing: result.audit.factsMissing.length, cut: result.audit.factsCut,
    constraintsMissing: result.audit.missing.filter((f) => f.kind === "constraint").length,
  };
  // What the summary says, for reading the report: the messages compact wrote (the input's objects are kept as they are).
  const written = result.messages.filter((m) => !messages.includes(m)).map((m) => textOf(m)).join("\n\n");
  return {
    messages: result.messages,
    summary: {
      text: written.length > SUMMARY_TEXT_CHARS ? `${written.slice(0, SUMMARY_TEXT_CHARS)}…` : written,
      compacted: result.compacted, tokens: result.tokensAfter, summarize: result.plan.summarize, audit,
      jobs: result.jobs.map((j) => ({ id: j.id, source: j.source, error: errorJson(j.error), revisions: j.revisions, revisionError: errorJson(j.revisionError) })),
      userTextAppended: result.userTextAppended.length, factsAppended: result.factsAppended.length, summaryMs, warnings: result.warnings,
    },
  };
}

/** Every question against every condition's history; the questions of one history in a row (one shared prefix). */
async function askAll(conversation, histories, endpoint, { transcripts: transcriptsDir, retest }) {
  const answers = conversation.questions.map(() => ({}));
  const present = conversation.questions.map(() => ({}));
  const placed = conversation.questions.map(() => ({}));
  if (transcriptsDir) mkdirSync(transcriptsDir, { recursive: true });
  for (const cond of CONDITIONS) {
    const text = transcript(histories[cond], conversation.messages);
    if (transcriptsDir) writeFileSync(join(transcriptsDir, `${conversation.id}.${cond}.txt`), text);
    // Whether the answer is still written in the history at all: what a perfect reader could answer.
    // And beside the words the question quotes: what a small model finds (see inContext).
    for (const [i, q] of conversation.questions.entries()) {
      present[i][cond] = matches(text, q.answer);
      placed[i][cond] = present[i][cond] && inContext(text, q.answer, q.question);
    }
    // Known not to fit: not sent (a slow local model would spend minutes reading it only to refuse). The longest
    // question is allowed for; the endpoint still refuses what this misjudges.
    const longest = Math.max(...conversation.questions.map((q) => q.question.length));
    const fits = estimate(askMessages(text, "x".repeat(longest))).total * endpoint.tokenRatio + ANSWER_TOKENS <= endpoint.contextSize;
    for (const [i, q] of conversation.questions.entries()) {
      if (endpoint.standIn) {
        answers[i][cond] = { na: true, reason: "no model in this run" };
        continue;
      }
      if (!fits) {
        answers[i][cond] = { na: true, reason: "longer than the model's context" };
        continue;
      }
      const ask = async (wording) => {
        try {
          const messages = askMessages(text, q.question, wording);
          const { text: answer, ms } = await endpoint.cache("answer", messages, () => complete(endpoint, messages));
          return { text: answer, correct: matches(answer, q.answer), ms };
        } catch (error) {
          if (error instanceof Overflow) return { na: true, reason: "refused by the endpoint as too long" };
          if (error instanceof NotCached) return { na: true, reason: "not in the cache (a replay asks nothing)" };
          return { correct: false, error: String(error.message ?? error) };
        }
      };
      answers[i][cond] = await ask(0);
      if (retest && cond === "original") answers[i].retest = await ask(1);
    }
  }
  return { answers, present, placed };
}

async function runConversation(conversation, baseEndpoint, flags) {
  // The model's tokens per estimated token on this conversation's own text (its language and kind of content).
  const probe = askMessages(transcript(conversation.messages, conversation.messages), "");
  // A replay takes the ratio its report measured (the summary requests were sized with it).
  const replayed = baseEndpoint.replayed?.get(conversation.id);
  const counted = baseEndpoint.standIn || baseEndpoint.replayed ? null : await countTokens(baseEndpoint, probe);
  const tokenRatio = replayed?.tokenRatio ?? (counted ? Math.min(4, Math.max(0.5, counted / estimate(probe).total)) : DEFAULT_TOKEN_RATIO);
  const endpoint = { ...baseEndpoint, tokenRatio };
  const ctxfold = await compacted(conversation.messages, { ...conversation.options, ...flags.options }, endpoint);
  const plain = await compacted(conversation.messages, { ...conversation.options, ...flags.options, ...PLAIN }, endpoint);
  // OpenCode's documented behaviour through the same model and window (without ctxfold's additions). `force`: its
  // limit differs from the default one (32K, at most half the window, kept for the answer); every selected
  // conversation is over both, so this only guards the comparison against one that sits between them.
  const opencode = await compacted(conversation.messages, { preset: "opencode", contextWindow: conversation.contextWindow, force: true, ...PLAIN }, endpoint);
  const truncation = truncateTo(conversation.messages, ctxfold.summary.tokens);
  const histories = { original: conversation.messages, ctxfold: ctxfold.messages, plain: plain.messages, truncation: truncation.messages, opencode: opencode.messages };
  const { answers, present, placed } = await askAll(conversation, histories, endpoint, flags);
  const valid = Object.fromEntries(CONDITIONS.map((c) => [c, validate(histories[c]).valid]));
  return {
    id: conversation.id, group: conversation.group, kind: conversation.kind, lang: conversation.lang,
    messages: conversation.messages.length, tokens: conversation.tokens, contextWindow: conversation.contextWindow,
    // Unrounded: a replay sizes the summary requests with it again.
    tokenRatio, tokenRatioMeasured: replayed ? replayed.tokenRatioMeasured : counted !== null,
    // The questions come from the plan made before the run; compact plans again and must pick the same range.
    samePlan: JSON.stringify(ctxfold.summary.summarize) === JSON.stringify(conversation.plan.summarize),
    conditions: {
      original: { tokens: conversation.tokens, valid: valid.original },
      ctxfold: { ...ctxfold.summary, valid: valid.ctxfold },
      plain: { ...plain.summary, valid: valid.plain },
      truncation: { tokens: truncation.tokens, dropped: truncation.dropped, valid: valid.truncation },
      opencode: { ...opencode.summary, valid: valid.opencode },
    },
    questions: conversation.questions.map((q, i) => ({ ...q, present: present[i], inContext: placed[i], answers: answers[i] })),
  };
}

/**
 * The conversations of an unfinished report at `flags.out` made with the same model and flags (`--resume`), by id;
 * `runtimeSeconds` on the map carries the time already spent.
 */
function resumable(flags) {
  let report;
  try {
    report = JSON.parse(readFileSync(flags.out, "utf8"));
  } catch {
    return new Map();
  }
  const same = !report.complete && report.seed === flags.seed && report.perGroup === flags.perGroup &&
    report.questionsPerConversation === flags.questions && Boolean(report.probe) === flags.probe && Boolean(report.retest) === flags.retest &&
    (!flags.model || report.model === flags.model);
  const map = new Map(same ? report.conversations.map((c) => [c.id, c]) : []);
  map.runtimeSeconds = same ? report.runtimeSeconds : 0;
  return map;
}

/**
 * The endpoint of a `--replay`: none, only the report's model name (the cache's key), window and conversations (by
 * id, for their token ratios). Sets the report's flags on `flags` (a run of `--conversations` replays those);
 * `--options` given with it replace the report's.
 */
function replayEndpoint(flags) {
  const report = JSON.parse(readFileSync(flags.replay, "utf8"));
  if (report.summaries !== "model") throw new Error(`--replay: ${flags.replay} is of a run without a model`);
  Object.assign(flags, {
    seed: report.seed, perGroup: report.perGroup, questions: report.questionsPerConversation, probe: Boolean(report.probe),
    retest: Boolean(report.retest), groups: [...new Set(report.conversations.map((c) => c.group))].join(","),
    conversations: report.subset ?? undefined,
    options: flags.optionsGiven ? flags.options : report.options ?? {},
  });
  const replayed = new Map(report.conversations.map((c) => [c.id, c]));
  return { model: report.model, local: false, contextSize: report.contextSize, replayed, stop: async () => {} };
}

export async function main(argv) {
  const flags = parseFlags(argv);
  const started = Date.now();
  const replay = flags.replay && replayEndpoint(flags);
  const selection = select(pickGroups(flags.groups), { perGroup: flags.perGroup, seed: flags.seed, maxQuestions: flags.questions, probe: flags.probe });
  const { skipped } = selection;
  // Round by round (each group's first conversation, then each one's second...): a run stopped early still
  // covers every group.
  const rank = new Map();
  const chosen = selection.chosen
    .map((c) => ({ c, round: rank.set(c.group, (rank.get(c.group) ?? -1) + 1).get(c.group) }))
    .sort((a, b) => a.round - b.round)
    .map(({ c }) => c)
    .filter((c) => !flags.conversations || flags.conversations.includes(c.id));
  const missing = flags.conversations?.filter((id) => !chosen.some((c) => c.id === id)) ?? [];
  if (missing.length) throw new Error(`--conversations: not in this selection (the seed, --per-group and --groups choose it): ${missing.join(", ")}`);
  const previous = flags.resume ? resumable(flags) : new Map();
  console.error(`eval: ${chosen.length} conversations, ${chosen.reduce((n, c) => n + c.questions.length, 0)} questions (seed ${flags.seed})`);
  const endpoint = replay || (flags.summaries === "model"
    ? await openEndpoint(flags)
    : { model: `(${flags.summaries} summaries, no model)`, local: false, contextSize: Infinity, standIn: standIn(flags.summaries), stop: async () => {} });
  endpoint.cache = answerCache(flags.summaries === "model" && flags.cache, endpoint.model, { readOnly: Boolean(replay) });
  const results = [];
  const runtimeBefore = flags.resume && previous.size ? previous.runtimeSeconds ?? 0 : 0;
  // Written after every conversation: a long run that is stopped still leaves what it measured.
  const write = (complete) => {
    const report = {
      model: endpoint.model, local: endpoint.local, replay: flags.replay, contextSize: endpoint.contextSize, summaries: flags.summaries, options: flags.options, probe: flags.probe, retest: flags.retest,
      seed: flags.seed, perGroup: flags.perGroup, questionsPerConversation: flags.questions, quick: flags.quick, subset: flags.conversations ?? null, complete,
      cache: flags.cache && { dir: flags.cache, ...endpoint.cache.counts },
      runtimeSeconds: runtimeBefore + Math.round((Date.now() - started) / 1000), skipped, ...summarize(results), conversations: results,
    };
    mkdirSync(dirname(flags.out), { recursive: true });
    writeFileSync(flags.out, `${JSON.stringify(report, null, 2)}\n`);
    return report;
  };
  try {
    for (const [i, conversation] of chosen.entries()) {
      const began = Date.now();
      const done = previous.get(conversation.id);
      // A result of the stopped run it resumes, kept when it asked the very same questions.
      if (done && JSON.stringify(done.questions.map((q) => q.question)) === JSON.stringify(conversation.questions.map((q) => q.question))) results.push(done);
      else results.push(await runConversation(conversation, endpoint, flags));
      write(false);
      console.error(`[${i + 1}/${chosen.length}] ${conversation.group} ${conversation.id}: ${conversation.tokens} tokens, ${conversation.questions.length} questions, ${((Date.now() - began) / 1000).toFixed(0)} s`);
    }
  } finally {
    await endpoint.stop();
  }
  const report = write(true);
  const totals = { groups: report.groups, overall: report.overall };
  const cached = !report.cache ? "" : replay
    ? `; replayed: ${report.cache.hits} answers from the cache, ${report.cache.misses} not in it and not asked`
    : `; ${report.cache.hits} answers from the cache, ${report.cache.misses} asked`;
  console.log(`model ${report.model} (context ${report.contextSize}), ${results.length} conversations, ${report.runtimeSeconds} s${cached}\n`);
  console.log(table(totals));
  if (report.overall.selfAgreement !== null) {
    console.log(`\nretest: of the questions the model answers from the original history, it answers ${Math.round(report.overall.selfAgreement * 100)}% again when asked in other words (the retention this model's own noise allows)`);
    if (report.overall.stable) console.log(`of the ${report.overall.stable} it answers both times, ctxfold's history answers ${Math.round(report.overall.stableRetention * 100)}%`);
  }
  // Where the model's summary did not stand, and why: the table only counts them.
  for (const c of endpoint.standIn ? [] : results) {
    for (const cond of COMPACTED) {
      for (const job of c.conditions[cond].jobs.filter((j) => j.source !== "llm")) {
        console.log(`fallback: ${c.id} ${cond} ${job.id} → ${job.source}: ${job.error?.code ?? ""} ${job.error?.message ?? ""}`.trimEnd());
      }
    }
  }
  console.log(`\nreport: ${flags.out}`);
  return report;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error?.stack ?? error);
    process.exit(1);
  });
}
