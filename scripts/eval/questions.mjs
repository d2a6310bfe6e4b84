// Questions with known answers, made without an LLM from the facts of the summarized range (facts.mjs).
//
// Each question is a cloze: the line or sentence the fact was written in, with the answer blanked, and who wrote
// it ("In the conversation, the user wrote: "My user id is ____." What is the missing identifier?"). The context
// makes the question specific (several reservation ids may be mentioned), and a faithful summary that states the
// fact with what it was about lets a model answer it. A fact becomes a question only if its answer occurs nowhere
// outside the summarized range (not in the system prompt, not in the kept tail): otherwise the question would
// test the tail, not the summary.
import { answeredCalls, commandOf, callsOf, fullText, textOf } from "./messages.mjs";
import { matches, normalize } from "./match.mjs";
import { summarizedIndices } from "./facts.mjs";

/** A message longer than this is a pasted document or a demonstration: no summary is expected to keep its details. */
const MAX_SOURCE_CHARS = 12000;
/** A user message longer than this is a task statement or a tool observation, not something the user said in passing. */
const LONG_USER_CHARS = 2000;
/** Questions from one message, at most: a listing (flight options, a directory) would otherwise fill the set. */
const PER_MESSAGE = 2;
/** The cloze's context, at most (characters). */
const MAX_CONTEXT_CHARS = 240;
/** Kinds in the order questions are drawn, one of each in turn, so a question set mixes kinds. */
const KIND_ORDER = ["identifier", "path", "number", "name", "email", "term", "url", "error", "constraint"];
const WHAT = {
  identifier: "identifier", path: "file path", number: "number", name: "name", email: "e-mail address", term: "term",
  url: "URL", error: "error type", constraint: "word",
};
const BLANK = "____";
/** Words that carry no content of their own in a constraint sentence (the blanked word must be specific). */
const COMMON = new Set(
  ("about after again always before being below between could doesn don't during every first going would should " +
    "their there these those thing things think through under until using where which while with without your yours " +
    "please thank thanks sorry really right still about must never only cannot avoid ensure make sure required least " +
    "remember " +
    "allowed because other another something anything nothing want wanted like know")
    .split(" "),
);

/** Escapes text for a RegExp. */
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A regex for `answer` that does not match inside a longer ASCII word or number. */
function answerPattern(answer) {
  const start = /^[A-Za-z0-9_]/.test(answer) ? "(?<![A-Za-z0-9_])" : "";
  const end = /[A-Za-z0-9_]$/.test(answer) ? "(?![A-Za-z0-9_])" : "";
  return new RegExp(start + escape(answer) + end, "g");
}

/**
 * The line holding `needle` in `text`; a long line is cut to the needle's sentence, then to a window around it; a
 * line that says little besides the needle (a list item, a bare value) gets the line before it.
 */
export function contextAround(text, needle) {
  const at = text.indexOf(needle);
  if (at < 0) return null;
  let start = text.lastIndexOf("\n", at) + 1;
  let end = text.indexOf("\n", at + needle.length);
  if (end < 0) end = text.length;
  if (end - start > MAX_CONTEXT_CHARS) {
    // The sentence: after the last end mark before the needle, up to the first one after it.
    const before = text.slice(start, at);
    const cut = Math.max(...[/[.!?]\s/g, /[。！？；]/g].flatMap((re) => [...before.matchAll(re)].map((m) => m.index + m[0].length)), 0);
    start += cut;
    const after = text.slice(at + needle.length, end).search(/[.!?](\s|$)|[。！？；]/);
    if (after >= 0) end = at + needle.length + after + 1;
  }
  if (end - start > MAX_CONTEXT_CHARS) {
    const half = Math.floor((MAX_CONTEXT_CHARS - needle.length) / 2);
    start = Math.max(start, at - half);
    end = Math.min(end, at + needle.length + half);
  }
  let context = text.slice(start, end).trim();
  const rest = context.replace(needle, " ").replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  const words = CJKish(rest) ? rest.replace(/\s/g, "").length / 2 : rest.split(" ").filter(Boolean).length;
  if (words < 3 && start > 0) {
    const previous = text.slice(0, start).trimEnd().split("\n").pop().trim();
    if (previous) context = `${previous.slice(-120)} / ${context}`;
  }
  return context.replace(/\s+/g, " ");
}

const CJKish = (s) => /[\u3040-\u30ff\u3400-\u9fff]/.test(s);

/** The answer a fact is asked for, or null when it would be guessable or is not a short, exact thing. */
function answerOf(fact, keptText) {
  const t = fact.text;
  switch (fact.kind) {
    case "number": {
      // The digits: the unit stays in the context, so "3 days" asks for the 3 and "$2,787" for the 2,787.
      const core = t.match(/\d[\d,.]*\d|\d/)?.[0].replace(/[.,]$/, "");
      return core && core.replace(/\D/g, "").length >= 2 ? core : null;
    }
    case "error":
      // The exception's name: the rest of an error line is rarely kept word for word.
      return t.match(/\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Exit|Interrupt)\b/)?.[0] ?? null;
    case "constraint": {
      // The longest specific word of the sentence that nothing outside the summarized range says.
      if (CJKish(t)) return null;
      const words = [...new Set((t.match(/[A-Za-z][A-Za-z'-]{4,}/g) ?? []).map((w) => w.replace(/['-]+$/, "")))].filter((w) => !COMMON.has(w.toLowerCase()));
      const specific = words.filter((w) => !matches(keptText, w)).sort((a, b) => b.length - a.length);
      return specific[0] ?? null;
    }
    case "identifier":
      // Plain words in backticks (`days`, `None`) are code, but anyone could guess them; a name over 40 characters
      // is data (base64, a cipher), which no summary is expected to copy.
      return /^[a-z]+$|^[A-Z][a-z]+$/.test(t) || t.length > 40 ? null : t;
    default:
      return t;
  }
}

/**
 * Where the fact was written, as `{ who, text, rank }`: the message's own text first, then its tool calls. `rank`
 * orders what a summary should keep: 0 the user's and the assistant's words, 1 the assistant's tool calls, 2 tool
 * output and long user messages (task statements, observations). `answered` is `answeredCalls(messages)`.
 */
export function sourceOf(messages, index, needle, answered) {
  const m = messages[index];
  const text = textOf(m);
  if (text.includes(needle)) {
    if (m.role === "tool") {
      const call = answered[index];
      const ran = call ? `, after the assistant called \`${call.name}\` with \`${commandOf(call, 120)}\`` : "";
      return { who: `the output of the tool \`${call?.name ?? m.name ?? "tool"}\`${ran}`, text, rank: 2 };
    }
    const who = m.role === "user" ? "the user" : m.role === "assistant" ? "the assistant" : `the ${m.role} message`;
    return { who, text, rank: m.role === "user" && text.length > LONG_USER_CHARS ? 2 : 0 };
  }
  for (const call of callsOf(m)) {
    const command = commandOf(call, Infinity);
    if (command.includes(needle)) return { who: `the assistant, calling the tool \`${call.name}\`,`, text: command, rank: 1 };
  }
  return null;
}

/** `text` with every occurrence of `answer` blanked. */
const blank = (text, answer) => text.replace(answerPattern(answer), BLANK);

/**
 * Whether the blanked `context` is also written somewhere in `texts` with something other than `answer` in its
 * blank: a listing's lines that differ only in their id ("- Flight Numbers: HAT069 (JFK to SEA) & ____") ask
 * about one of several values and no history can tell which. Whitespace matches any whitespace, and the " / "
 * that joins a short line to the one before it matches the line break it stands for.
 */
export function ambiguous(context, answer, texts) {
  const parts = context.split(BLANK).map((p) => escape(p).replace(/ \/ /g, "\0").replace(/\s+/g, "\\s+").replace(/\0/g, "\\s+(?:/\\s+)?"));
  // A blank between words takes as little as reaches them; one that ends the context, all up to a space (or,
  // for a value of several words, the line's end).
  const last = parts.length === 2 && parts[1] === "";
  const fill = `(${/\s/.test(answer) ? "[^\\n]" : "\\S"}+${last ? "" : "?"})`;
  // The first blank captures; the others must hold the same text.
  const pattern = new RegExp(parts.map((p, k) => (k === 0 ? p : (k === 1 ? fill : "\\1") + p)).join(""), "gu");
  // What a blank takes may hold more than the value (a mark after it, the words before a blank that starts the
  // window): holding the answer, it is the same.
  return texts.some((text) => [...text.matchAll(pattern)].some((m) => !matches(m[1] ?? answer, answer)));
}

/**
 * Up to `max` questions `[{ kind, from, message, question, answer }]` from `facts`, deterministic: per kind, the
 * user's and assistant's words first, then facts mentioned in more messages, then those of messages with fewer
 * facts, then earlier ones; kinds taken in turn, at most `PER_MESSAGE` from one message. `accept(answer)` may pass
 * over answers for reasons of the caller's.
 */
export function questionsFor(messages, plan, facts, max = 8, accept = () => true) {
  const summarized = summarizedIndices(plan);
  const inRange = new Set(summarized);
  const keptText = messages.filter((_, i) => !inRange.has(i)).map(fullText).join("\n");
  const rangeTexts = summarized.map((i) => fullText(messages[i]));
  const allTexts = messages.map(fullText);
  const answered = answeredCalls(messages);
  const candidates = [];
  for (const fact of facts) {
    if (fullText(messages[fact.message]).length > MAX_SOURCE_CHARS) continue;
    const answer = answerOf(fact, keptText);
    if (!answer) continue;
    const plain = normalize(answer);
    if (plain.replace(/\s/g, "").length < (/^\d+$/.test(plain) ? 2 : 3)) continue;
    if (matches(keptText, answer) || !accept(answer)) continue;
    // Where it was said: the fact's own text (an error line, a sentence), else the answer itself.
    const source = sourceOf(messages, fact.message, fact.text, answered) ?? sourceOf(messages, fact.message, answer, answered);
    if (!source) continue;
    const context = contextAround(source.text, source.text.includes(fact.text) ? fact.text : answer);
    if (!context) continue;
    const quoted = blank(context, answer);
    if (!quoted.includes(BLANK)) continue;
    // Blanked everywhere, the description of the source included (a call's arguments may hold the answer).
    const question = blank(`In the conversation, ${source.who} wrote: "${context}" What is the missing ${WHAT[fact.kind] ?? "text"} (${BLANK})?`, answer);
    // Last, the one check that reads the whole conversation.
    if (matches(question, answer) || ambiguous(quoted, answer, allTexts)) continue;
    const mentions = rangeTexts.filter((t) => t.includes(answer)).length;
    candidates.push({ kind: fact.kind, from: fact.from, message: fact.message, rank: source.rank, mentions, question, answer });
  }
  // Facts per message: one of many in a listing matters less than the one a message was about.
  const density = new Map();
  for (const c of candidates) density.set(c.message, (density.get(c.message) ?? 0) + 1);
  const byKind = new Map(KIND_ORDER.map((k) => [k, []]));
  for (const c of candidates) byKind.get(c.kind)?.push(c);
  for (const list of byKind.values()) {
    list.sort((a, b) => a.rank - b.rank || b.mentions - a.mentions || density.get(a.message) - density.get(b.message) ||
      a.message - b.message || (a.answer < b.answer ? -1 : 1));
  }
  const chosen = [];
  const answers = new Set();
  const perMessage = new Map();
  // First one question per message, then up to PER_MESSAGE: two facts of one sentence (a date's year and month)
  // come only when the conversation has nothing else to ask.
  for (let cap = 1; cap <= PER_MESSAGE; cap++) {
    const left = new Map([...byKind].map(([k, list]) => [k, [...list]]));
    while (chosen.length < max && [...left.values()].some((l) => l.length)) {
      for (const kind of KIND_ORDER) {
        const list = left.get(kind);
        while (list.length && chosen.length < max) {
          const c = list.shift();
          if (answers.has(normalize(c.answer)) || (perMessage.get(c.message) ?? 0) >= cap) continue;
          answers.add(normalize(c.answer));
          perMessage.set(c.message, (perMessage.get(c.message) ?? 0) + 1);
          chosen.push(c);
          break;
        }
      }
    }
  }
  // In conversation order, which is also the order a reader of the report follows.
  return chosen
    .sort((a, b) => a.message - b.message)
    .map((c) => ({ kind: c.kind, from: c.from, message: c.message, question: c.question, answer: c.answer }));
}
