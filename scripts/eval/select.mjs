// The fixed, seeded selection of conversations, and each one's budget, plan and questions: everything that is
// decided before a model is asked anything, so the same flags give the same conversations and questions whatever
// endpoint answers.
import { estimate, plan_compaction, prune, quality_probe } from "ctxfold";
import { readCorpus } from "../../pkg-tests/corpus.mjs";
import { factsOf } from "./facts.mjs";
import { matches } from "./match.mjs";
import { questionsFor } from "./questions.mjs";
import { random } from "./stats.mjs";
import { transcript } from "./transcript.mjs";

/** Fewer questions than this and a conversation is passed over: its summarized part says too little that is checkable. */
export const MIN_QUESTIONS = 3;

/** A group's own seed, so adding a group or changing --per-group does not reshuffle the others. */
function groupSeed(seed, name) {
  let h = seed >>> 0;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

/**
 * The context window at which ctxfold's compaction limit is half the conversation's estimated tokens: the
 * smallest window whose `budget.limit` reaches it (the limit is a fraction of the window less the space kept
 * for the answer, so it is found by bisection rather than by a formula of ctxfold's defaults). The plan then
 * keeps a recent tail of at most a quarter of that limit, and the history comes back at most about half as long.
 */
export function contextWindowFor(messages, total) {
  const target = Math.floor(total / 2);
  let low = 1;
  let high = 16 * total + 64_000;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (estimate(messages, { contextWindow: mid }).budget.limit < target) low = mid;
    else high = mid;
  }
  return high;
}

/**
 * ctxfold's options for a conversation: the window above, and for chats the `general` template, which the README
 * recommends for chat apps (the default `sections` template is made for coding agents).
 */
export function compactionOptions(group, contextWindow) {
  return group.kind === "chat" ? { contextWindow, template: "general" } : { contextWindow };
}

/**
 * A conversation with its budget, plan and questions, or `{ skip }` saying why it cannot be used. The plan is made
 * the way `compact` makes it (prune first, then plan on what is left), so the questions come from the very range
 * `compact` will summarize.
 */
export function prepare(conversation, group, maxQuestions, probe = false) {
  const { messages } = conversation;
  const tokens = estimate(messages).total;
  if (tokens < group.minTokens || tokens > group.maxTokens) return { skip: "size" };
  const contextWindow = contextWindowFor(messages, tokens);
  const options = compactionOptions(group, contextWindow);
  const pruned = prune(messages, options).messages;
  const plan = plan_compaction(pruned, options);
  if (!plan.needed || plan.jobs.length === 0) return { skip: "no compaction" };
  // Only answers the original transcript, as the model is shown it (capped), still holds: the others no history
  // could answer.
  const shown = transcript(messages, messages);
  const answerable = (answer) => matches(shown, answer);
  const questions = probe
    ? quality_probe(pruned, plan, maxQuestions).questions.filter((q) => answerable(q.answer))
    : questionsFor(pruned, plan, factsOf(pruned, plan), maxQuestions, answerable);
  if (questions.length < Math.min(MIN_QUESTIONS, maxQuestions)) return { skip: "too few questions" };
  return {
    id: conversation.id, group: group.name, kind: group.kind, lang: conversation.lang ?? group.lang,
    messages, tokens, contextWindow, options, plan, questions,
  };
}

/** `perGroup` conversations of each group, drawn in a seeded order among those `prepare` accepts. */
export function select(groups, { perGroup, seed, maxQuestions, probe = false }) {
  const chosen = [];
  const skipped = {};
  for (const group of groups) {
    const all = readCorpus(group.file);
    const next = random(groupSeed(seed, group.name));
    // Fisher–Yates with the seeded generator.
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [all[i], all[j]] = [all[j], all[i]];
    }
    const counts = (skipped[group.name] = {});
    let taken = 0;
    for (const conversation of all) {
      if (taken >= perGroup) break;
      const prepared = prepare(conversation, group, maxQuestions, probe);
      if (prepared.skip) {
        counts[prepared.skip] = (counts[prepared.skip] ?? 0) + 1;
        continue;
      }
      chosen.push(prepared);
      taken++;
    }
  }
  return { chosen, skipped };
}
