// The two corpus conversations every runtime is tested on. The corpus lives beside the repo
// (../shared/corpus from the repo root, the same place in CI), so it is read, never copied in.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const corpusDir = fileURLToPath(new URL("../../shared/corpus/", import.meta.url));

// Chosen so the small windows in scenario.mjs are surely exceeded: a tau-bench conversation that reuses a
// tool-call id once its call was answered (as 37 of the 152 do; providers accept it), and a long
// mini-swe-agent run (182 messages, 82 tool calls, ~270 KB of JSON).
export const CHOSEN = {
  tau: { file: "tau-bench-airline.jsonl", id: "tau-airline-0-0" },
  swe: { file: "mini-swe-agent-tools.jsonl", id: "mini-django__django-15554" },
};

function readConversation({ file, id }) {
  const needle = `"id": ${JSON.stringify(id)}`;
  const line = readFileSync(corpusDir + file, "utf8").split("\n").find((l) => l.includes(needle));
  if (!line) throw new Error(`conversation ${id} not found in ${corpusDir}${file}`);
  const { messages } = JSON.parse(line);
  return { id, messages };
}

/** Every conversation of one corpus file (`"tau-bench-airline.jsonl"`), as the parsed objects `{ id, messages, ... }`. */
export function readCorpus(file) {
  return readFileSync(corpusDir + file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** `{ tau: { id, messages }, swe: { id, messages } }`: the input every runtime's scenario gets. */
export function loadConversations() {
  return Object.fromEntries(Object.entries(CHOSEN).map(([key, where]) => [key, readConversation(where)]));
}
