// The corpus groups the eval draws from. Each names its corpus file and the size band (estimated o200k tokens
// of the whole conversation) it picks from: long enough that half of it has to be summarized, short enough that
// the original history still fits a small local model, so there is an "original" answer to compare with.
// The bands differ because the groups differ: a tau-bench run carries a 1.5K-token policy that is never
// summarized, KdConv dialogues are all under 900 tokens, and mini-swe-agent runs are mostly over 20K (the few
// under 10K are taken; their originals are still too long for an 8K model).

/** `kind` "agent": tool-calling runs; "chat": long conversations of plain turns. */
export const GROUPS = [
  { name: "tau-bench-airline", file: "tau-bench-airline.jsonl", kind: "agent", lang: "en", minTokens: 4000, maxTokens: 6000 },
  { name: "mini-swe-agent-tools", file: "mini-swe-agent-tools.jsonl", kind: "agent", lang: "en", minTokens: 5000, maxTokens: 10000 },
  { name: "toolbench", file: "toolbench.jsonl", kind: "agent", lang: "en", minTokens: 1000, maxTokens: 4000 },
  { name: "swe-agent", file: "swe-agent.jsonl", kind: "agent", lang: "en", minTokens: 1500, maxTokens: 6000 },
  { name: "medicalgpt-zh", file: "medicalgpt-zh.jsonl", kind: "chat", lang: "zh", minTokens: 1500, maxTokens: 3000 },
  { name: "kdconv-zh", file: "kdconv-zh.jsonl", kind: "chat", lang: "zh", minTokens: 600, maxTokens: 2000 },
  // Optional (--groups ...,jmultiwoz-ja): Japanese travel dialogues, all under 1.1K tokens.
  { name: "jmultiwoz-ja", file: "jmultiwoz-ja.jsonl", kind: "chat", lang: "ja", minTokens: 600, maxTokens: 2000, optional: true },
];

/** The groups a run uses: the named ones, or every group that is not optional. */
export function pickGroups(names) {
  if (!names) return GROUPS.filter((g) => !g.optional);
  const wanted = names.split(",").map((s) => s.trim()).filter(Boolean);
  for (const w of wanted) if (!GROUPS.some((g) => g.name === w)) throw new Error(`unknown group ${w}; known: ${GROUPS.map((g) => g.name).join(", ")}`);
  return GROUPS.filter((g) => wanted.includes(g.name));
}
