// The corpus as the estimator sees it, for scripts/fit-profiles.mjs and the benchmark: every
// conversation's messages, the texts ctxfold counts in each (content, name, tool-call names and
// arguments, exactly the message view of src/reading/format/openai_chat.rs), and the ground-truth count.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { readCorpus } from "../pkg-tests/corpus.mjs";

/**
 * What scripts/class_counts.rs prints (built from the shipping code, `args` its flags) for `texts`: one row of
 * numbers per text.
 */
export function classCountRows(args, texts) {
  const out = execFileSync("cargo", ["run", "--quiet", "--release", "--example", "class_counts", "--", ...args], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    input: texts.map((t) => JSON.stringify(t)).join("\n") + "\n",
    encoding: "utf8",
    maxBuffer: 1 << 30,
    stdio: ["pipe", "pipe", "inherit"],
  });
  return out.trim().split("\n").map((l) => l.split(" ").map(Number));
}

/**
 * The exact counts the estimates are measured against, by profile: gpt-tokenizer's o200k_base and cl100k_base,
 * and `@anthropic-ai/tokenizer` for claude, counted as its `countTokens` counts (NFKC first, special tokens
 * read as text) but with one tokenizer for every text: `countTokens` builds a new one per call, about 50 ms.
 */
export async function exactCounters() {
  const o200k = await import("gpt-tokenizer/encoding/o200k_base");
  const cl100k = await import("gpt-tokenizer/encoding/cl100k_base");
  const claude = (await import("@anthropic-ai/tokenizer")).getTokenizer();
  return {
    o200k: (t) => o200k.countTokens(t),
    cl100k: (t) => cl100k.countTokens(t),
    claude: (t) => claude.encode(t.normalize("NFKC"), "all").length,
  };
}

/** Corpus groups (one per file), in the order reports list them. */
export const GROUPS = [
  "tau-bench-airline", "mini-swe-agent-tools", "mini-swe-agent-text", "swe-agent", "toolbench",
  "medicalgpt-zh", "kdconv-zh", "jmultiwoz-ja", "chitchat-en",
];

/** Every conversation of a group: `{ id, messages, labels }`. */
export function readGroup(group) {
  return readCorpus(`${group}.jsonl`);
}

/** The text of a message's content: a string, or its text parts joined by newlines. */
export function contentText(m) {
  if (typeof m.content === "string") return m.content;
  if (!Array.isArray(m.content)) return "";
  return m.content.filter((p) => p.type === "text" || p.type === "refusal").map((p) => p.text ?? p.refusal).join("\n");
}

/** The texts of one message that carry tokens beside the fixed framing. */
export function messageTexts(m) {
  const texts = [contentText(m)];
  if (typeof m.name === "string") texts.push(m.name);
  for (const c of m.tool_calls ?? []) texts.push(c.function?.name ?? "", c.function?.arguments ?? "");
  return texts.filter((t) => t.length > 0);
}

/**
 * The pieces of one message as the estimator weighs them (src/counting/estimate.rs, `MessageSize`), each rounded up
 * on its own: the body (content and name; absent from a tool result, and from an assistant message that
 * only calls tools), each tool call (name and arguments), the tool result. `framing(perMessage)` is the
 * piece's fixed cost under a profile with that per-message cost (a name 1, a call 8, as in every profile).
 */
export function messagePieces(m) {
  const text = contentText(m);
  const calls = m.tool_calls ?? [];
  if (m.role === "tool") return [{ texts: [text], framing: (perMessage) => perMessage }];
  const named = typeof m.name === "string";
  const hasBody = text.length > 0 || calls.length === 0;
  const pieces = calls.map((c) => ({ texts: [c.function?.name ?? "", c.function?.arguments ?? ""], framing: () => 8 }));
  if (hasBody || named) pieces.unshift({ texts: [text, ...(named ? [m.name] : [])], framing: (perMessage) => (hasBody ? perMessage : 0) + (named ? 1 : 0) });
  return pieces.map((p) => ({ ...p, texts: p.texts.filter((t) => t.length > 0) }));
}

/**
 * The benchmark's ground truth (OpenAI's cookbook count, as the issue fixes it): each message 3 tokens
 * plus the tokens of its role and of its content, +1 (and the name's tokens) when it has a `name`, each
 * tool call the tokens of its function name and arguments plus 8, and 3 for the reply.
 */
export function truthCount(messages, count) {
  let n = 3;
  for (const m of messages) n += messageCount(m, count);
  return n;
}

/** One message's part of `truthCount`. */
export function messageCount(m, count) {
  let n = 3 + count(m.role) + count(contentText(m));
  if (typeof m.name === "string") n += 1 + count(m.name);
  for (const c of m.tool_calls ?? []) n += 8 + count(c.function?.name ?? "") + count(c.function?.arguments ?? "");
  return n;
}

/** The exact count of each request of a conversation (`[messages sent, tokens]`: one before every assistant
 * message), times `factor` plus `fixed` tokens: a provider's reports, from a profile known to be that far off. */
export function exactPoints(messages, count, factor = 1, fixed = 0) {
  const points = [];
  let total = 3;
  for (let n = 0; n < messages.length; n++) {
    if (n > 0 && messages[n].role === "assistant") points.push([n, Math.round(total * factor) + fixed]);
    total += messageCount(messages[n], count);
  }
  return points;
}

/** Statistics of relative errors ((estimate − truth) / truth): median and p90 of |error|, share under by >5%. */
export function errorStats(errors) {
  const abs = errors.map(Math.abs).sort((a, b) => a - b);
  const q = (p) => abs[Math.min(abs.length - 1, Math.floor(p * abs.length))];
  return { n: errors.length, median: q(0.5), p90: q(0.9), under5: errors.filter((e) => e < -0.05).length / errors.length };
}

export const pct = (x) => `${(x * 100).toFixed(1)}%`;
