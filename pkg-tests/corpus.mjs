// The corpus of real conversations (./corpus, gzipped JSONL; its README says what each file is and
// under which licence), read for tests, benchmarks, the fit and the eval; and the two conversations every
// runtime is tested on.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

const corpusDir = fileURLToPath(new URL("./corpus/", import.meta.url));

// Chosen so the small windows in scenario.mjs are surely exceeded: a tau-bench conversation that reuses a
// tool-call id once its call was answered (as 37 of the 152 do; providers accept it), and a long
// mini-swe-agent run (182 messages, 82 tool calls, ~270 KB of JSON).
export const CHOSEN = {
  tau: { file: "tau-bench-airline.jsonl", id: "tau-airline-0-0" },
  swe: { file: "mini-swe-agent-tools.jsonl", id: "mini-django__django-15554" },
};

function readConversation({ file, id }) {
  const needle = `"id": ${JSON.stringify(id)}`;
  const line = corpusText(file).split("\n").find((l) => l.includes(needle));
  if (!line) throw new Error(`conversation ${id} not found in ${corpusDir}${file}.gz`);
  const { messages } = JSON.parse(line);
  return { id, messages };
}

/** The JSONL text of one corpus file (`file`: e.g. "tau-bench-airline.jsonl"). */
function corpusText(file) {
  return gunzipSync(readFileSync(`${corpusDir}${file}.gz`)).toString("utf8");
}

/** `{ tau: { id, messages }, swe: { id, messages } }`: the input every runtime's scenario gets. */
export function loadConversations() {
  return Object.fromEntries(Object.entries(CHOSEN).map(([key, where]) => [key, readConversation(where)]));
}

/** The corpus files' names, as `<group>.jsonl`. */
export function corpusFiles() {
  return readdirSync(corpusDir).filter((f) => f.endsWith(".jsonl.gz")).map((f) => f.slice(0, -3)).sort();
}

/** Every conversation of one corpus file: `{ id, messages, ... }`. */
export function readCorpus(file) {
  return corpusText(file).split("\n").filter(Boolean).map((line) => JSON.parse(line));
}
