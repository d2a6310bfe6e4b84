// `npm run bench` (last part): prune → plan on a 200 000-token request body inside the real Workers runtime
// (workerd), the body taken as text as a Worker receives it. Prints numbers; asserts nothing.
//
// Method: the packed package is installed into a scratch project (as the package tests do) and a Worker is
// bundled from it the way wrangler bundles. The body is OpenAI Chat `{ model, messages }` made of corpus agent
// runs (mini-swe-agent-tools, then swe-agent) put one after another until `estimate` counts 200 000 tokens. The
// Worker answers `POST /work` with `prune(text)` then `plan_compaction` on the pruned text, and `POST /echo` with
// the body's length only; `/work-bytes` and `/echo-bytes` do the same with the body's UTF-8 bytes
// (`request.arrayBuffer()`), which ctxfold reads without decoding and answers in kind. workerd does not advance
// its clock during a request's computation (a Workers rule), so the time is measured by the client: 60 warm-up
// rounds (`WARM_UP`), then 30 rounds of both requests, alternating; the cost of the work is each `/work` request less the
// median `/echo` request (sending and reading the body).
// Cloudflare's free plan allows 10 ms of CPU per request.
//
// CTXFOLD_BASE=/path/to/another/checkout (with its dist/ built) serves that build's Worker beside this one's
// and sends every request to both, in turn, the first of the two alternating: the builds are compared on the
// same machine at the same moment, and the ratio of their medians is printed. A shared machine's speed can
// vary by 2x from one day to the next, so a change is judged by that ratio, not by times measured apart.
//
// ctxfold keeps the counts of long texts it read lately (src/counting/memo.rs), so a body seen before costs
// less; and the last text it wrote, so `plan_compaction` takes prune's answer without reading it again. Two
// cases are measured: "new", where every round's body is one no earlier request held (each message's text
// starts with the round's number), which is the figure for the target; and "again", the same body every round
// (a client retrying, or a conversation sent again unchanged). Then a compacting proxy's steady state: `compact`
// on a body that grows by two messages a round, with `memory` (the conversation's compaction remembered from
// the first round) and without (each round compacted anew, the summarizer a function that answers at once);
// this build only.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import { prepareFixture } from "../fixture.mjs";
import { readCorpus } from "../corpus.mjs";
import { bundleWorker, serveWorker } from "../workerd.mjs";

const TOKENS = 200_000;
/**
 * Rounds before measuring. workerd's V8 moves a large wasm function to its optimizing tier late: a build at
 * `opt-level = 3`, whose scanner is one large function, measured 15.4 ms a new body after 5 rounds and 11.7 ms
 * after 60 (the shipping build, the same after either).
 */
const WARM_UP = 60;
const OPTIONS = { contextWindow: 128_000 };

const WORKER = `import { compact, plan_compaction, prune } from "ctxfold";
const OPTIONS = ${JSON.stringify(OPTIONS)};
const memory = new Map();
export default {
  async fetch(request) {
    const { pathname } = new URL(request.url);
    // The body as text, or as its UTF-8 bytes, which ctxfold reads as they are (no decoding, no copy to UTF-16).
    const body = pathname.endsWith("-bytes") ? new Uint8Array(await request.arrayBuffer()) : await request.text();
    if (pathname.startsWith("/echo")) return new Response(String(body.length));
    if (pathname.startsWith("/proxy")) {
      // A compacting proxy's request: compact, with memory or without (the summarizer is the host's own
      // function, here one that answers at once, so that only ctxfold's work is timed).
      const remember = pathname.startsWith("/proxy-memory") ? { memory } : {};
      const result = await compact(body, { ...OPTIONS, ...remember, maxRevisions: 0, summarize: () => "The work so far." });
      return Response.json({ resumed: result.resumed, compacted: result.compacted, tokens: result.tokensAfter });
    }
    const pruned = prune(body, OPTIONS).messages;
    const plan = plan_compaction(pruned, OPTIONS);
    return Response.json({ tokens: plan.tokensBefore, needed: plan.needed, jobs: plan.jobs.length });
  },
};
`;

const { estimate, plan_compaction, prune } = await import("../../dist/node.mjs");
const messages = [];
for (const file of ["mini-swe-agent-tools.jsonl", "swe-agent.jsonl"]) {
  for (const c of readCorpus(file)) {
    if (estimate(messages).total >= TOKENS) break;
    messages.push(...c.messages.filter((m, i) => i > 0 || m.role !== "system"));
  }
}
const body = JSON.stringify({ model: "gpt-4.1", messages });
console.log(`\nWorkers: prune → plan_compaction on a ${estimate(messages).total}-token body (${(body.length / 1e6).toFixed(2)} MB of JSON, ${messages.length} messages), inside workerd`);

const base = process.env.CTXFOLD_BASE; // another checkout to compare with
/** A Worker of the package that `fixture` packs (this checkout's, or the base's), served. */
async function serve(fixture) {
  const scratch = fixture.prepareFixture();
  try {
    const project = join(scratch, "project");
    writeFileSync(join(project, "bench-worker.js"), WORKER);
    const outDir = join(scratch, "workerd-bench");
    const { wasmModules } = await bundleWorker(project, outDir, "bench-worker.js");
    return { scratch, worker: await serveWorker(outDir, wasmModules) };
  } catch (e) {
    rmSync(scratch, { recursive: true, force: true });
    throw e;
  }
}
const builds = [{ name: "this build", ...(await serve({ prepareFixture })) }];
const at = (list, q) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))];
try {
  if (base) builds.push({ name: "base", ...(await serve(await import(pathToFileURL(join(base, "pkg-tests", "fixture.mjs")).href))) });
  const post = async (worker, path, body) => {
    const t0 = performance.now();
    const res = await fetch(`${worker.url}${path.slice(1)}`, { method: "POST", body });
    const answer = await res.text();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${answer}`);
    return [performance.now() - t0, answer];
  };
  /**
   * Each build's `/work` times (or `work`'s, from `on` only), its median `/echo` time, and its cost of the work
   * (`net`: each `/work` less that median). `bodyOf(k)` is asked once a round, in order.
   */
  const measure = async (bodyOf, as = "", work = "/work", on = builds) => {
    const times = on.map(() => ({ work: [], echo: [] }));
    let answer;
    for (let k = -WARM_UP; k < 30; k++) {
      const b = bodyOf(k);
      for (const j of on.map((_, j) => (j + k + WARM_UP) % on.length)) {
        const [w, a] = await post(on[j].worker, `${work}${as}`, b);
        const [e] = await post(on[j].worker, `/echo${as}`, b);
        if (k < 0) continue;
        times[j].work.push(w);
        times[j].echo.push(e);
        answer = a;
      }
    }
    return times.map(({ work, echo }) => ({ work, echo: at(echo, 0.5), net: work.map((w) => w - at(echo, 0.5)), answer }));
  };
  const numbered = (k) => JSON.stringify({ model: "gpt-4.1", messages: messages.map((m) => (typeof m.content === "string" ? { ...m, content: `${k} ${m.content}` } : m)) });
  const fresh = await measure(numbered);
  const again = await measure(() => body);
  const bytes = await measure((k) => numbered(1000 + k), "-bytes");
  console.log(`  plan: ${fresh[0].answer}`);
  const cases = [["a new body each request", fresh], ["the same body again", again], ["a new body each request, read as bytes (arrayBuffer)", bytes]];
  for (const [what, results] of cases) {
    console.log(`  ${what}:`);
    results.forEach((r, j) => {
      const target = r === fresh[0] ? " (target: median under 10 ms)" : "";
      console.log(`    ${builds[j].name}: /work median ${at(r.work, 0.5).toFixed(1)} ms, p90 ${at(r.work, 0.9).toFixed(1)} ms; /echo (send and read the body) median ${r.echo.toFixed(1)} ms`);
      console.log(`      prune → plan, /work less the /echo median: median ${at(r.net, 0.5).toFixed(1)} ms, p90 ${at(r.net, 0.9).toFixed(1)} ms${target}`);
    });
    if (base) console.log(`    this build / base, median of prune → plan: ${(at(results[0].net, 0.5) / at(results[1].net, 0.5)).toFixed(3)}`);
  }
  // A proxy's steady state: each request is the one before with two messages more, as a client sends it, with
  // the conversation's compaction remembered from the first request, and without (each request compacted
  // anew). This build only (the option is new).
  for (const [what, work] of [["with memory", "/proxy-memory"], ["without memory", "/proxy"]]) {
    const turns = [];
    const grown = (k) => {
      turns.push({ role: "assistant", content: `Answer ${k}.` }, { role: "user", content: `Question ${k}?` });
      return new TextEncoder().encode(JSON.stringify({ model: "gpt-4.1", messages: [...messages, ...turns] }));
    };
    const [{ net, answer }] = await measure(grown, "-bytes", work, [builds[0]]);
    const last = JSON.parse(answer);
    console.log(`  compact ${what}, each request the one before and two messages, as bytes (a compacting proxy; ${last.resumed} messages resumed, compacted: ${last.compacted}):`);
    console.log(`    ${builds[0].name}: less the /echo median: median ${at(net, 0.5).toFixed(1)} ms, p90 ${at(net, 0.9).toFixed(1)} ms`);
  }
  // The same work in this Node process, for comparison (new bodies).
  const inNode = [];
  for (let k = 0; k < 30; k++) {
    const b = numbered(100 + k);
    const t0 = performance.now();
    plan_compaction(prune(b, OPTIONS).messages, OPTIONS);
    inNode.push(performance.now() - t0);
  }
  console.log(`  this build in Node (this process, a new body each time): median ${at(inNode, 0.5).toFixed(1)} ms, p90 ${at(inNode, 0.9).toFixed(1)} ms`);
} finally {
  for (const { worker, scratch } of builds) {
    await worker.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}
