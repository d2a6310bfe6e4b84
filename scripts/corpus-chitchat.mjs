// `node scripts/corpus-chitchat.mjs`: writes pkg-tests/corpus/chitchat-en.jsonl.gz, the corpus's long English
// chats, from the PyPI wheel `chitchat-dataset` 0.9.0 (BYU-PCCL's Chit-Chat dataset, MIT; pinned by sha256).
//
// The dataset holds 7 168 text chats between two people (students, 2018), each a list of turns, a turn being
// one speaker's consecutive messages. Taken: the chats with both speakers and at least MIN_TURNS turns, in the
// order of the sha256 of their ids (a fixed shuffle), the first COUNT of them. A turn becomes one message whose
// content is its messages joined by newlines, the first speaker's as "user" and the other's as "assistant";
// ids, timestamps and ratings are dropped. The output is the same bytes on every run (gzip without a name or
// time stamp).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { downloadWheel, sha256, unzipMember } from "./wheel.mjs";

const WHEEL = { pypi: "chitchat-dataset", version: "0.9.0", wheelSha256: "7bf89f36645e2d5ec87d53370c8e851b5a688479c7beb7079cb4c87fc5acea3e" };
const MIN_TURNS = 10;
const COUNT = 600;

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "pkg-tests", "corpus", "chitchat-en.jsonl.gz");

const dataset = JSON.parse(unzipMember(await downloadWheel(WHEEL), "chitchat_dataset/dataset.json").toString("utf8"));
const chats = Object.entries(dataset)
  .map(([id, chat]) => ({ id, turns: (chat.messages ?? []).filter((turn) => turn.length > 0) }))
  .filter(({ turns }) => turns.length >= MIN_TURNS && new Set(turns.map((turn) => turn[0].sender)).size === 2)
  .map((chat) => ({ ...chat, order: sha256(chat.id) }))
  .sort((a, b) => (a.order < b.order ? -1 : 1))
  .slice(0, COUNT);

const lines = chats.map(({ id, turns }) => {
  const first = turns[0][0].sender;
  const messages = turns.map((turn) => ({
    role: turn[0].sender === first ? "user" : "assistant",
    content: turn.map((m) => m.text).join("\n"),
  }));
  return JSON.stringify({ id: `chitchat-${id}`, source: "BYU-PCCL/chitchat-dataset", license: "MIT", lang: "en", messages, labels: {} });
});
writeFileSync(out, gzipSync(lines.join("\n") + "\n", { level: 9 }));
const chars = chats.map(({ turns }) => turns.flat().reduce((n, m) => n + m.text.length, 0)).sort((a, b) => a - b);
console.log(`${out}: ${chats.length} chats, median ${chars[chats.length >> 1]} characters, median turns ${chats.map((c) => c.turns.length).sort((a, b) => a - b)[chats.length >> 1]}`);
