// The Worker example through `wrangler dev`, as its README says to run it: wrangler's own bundling (the
// "workerd" export condition) and its local runtime, with the installed tarball. Offline: telemetry
// off, and no fetch of the Request.cf placeholder from Cloudflare.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { fixture } from "./fixture.mjs";
import { startLlmServer } from "./llm-server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const wranglerBin = join(root, "node_modules", "wrangler", "bin", "wrangler.js");

async function freePort() {
  const server = createServer();
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/** `wrangler dev` in `dir` until "Ready on"; `stop()` ends it and the workerd it started (one process group). */
async function wranglerDev(dir, vars) {
  const port = await freePort();
  const args = [wranglerBin, "dev", "--ip", "127.0.0.1", "--port", String(port), ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`])];
  const child = spawn(process.execPath, args, {
    cwd: dir,
    detached: true, // its own process group, so stop() reaches workerd too
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1" },
  });
  let output = "";
  const exited = new Promise((done) => child.once("exit", done));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    const timer = setTimeout(() => { try { process.kill(-child.pid, "SIGKILL"); } catch {} }, 5000);
    await exited;
    clearTimeout(timer);
  };
  const killOnExit = () => { try { process.kill(-child.pid, "SIGKILL"); } catch {} };
  process.once("exit", killOnExit);
  await new Promise((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`wrangler dev did not get ready within 120 s:\n${output}`)), 120_000);
    const watch = (d) => {
      output += d;
      if (output.includes(`Ready on http://127.0.0.1:${port}`)) { clearTimeout(timer); ready(); }
    };
    child.stdout.on("data", watch);
    child.stderr.on("data", watch);
    exited.then((code) => { clearTimeout(timer); fail(new Error(`wrangler dev exited (${code}):\n${output}`)); });
  }).catch(async (e) => { await stop(); throw e; });
  return { url: `http://127.0.0.1:${port}/`, output: () => output, stop: async () => { process.off("exit", killOnExit); await stop(); } };
}

test("wrangler dev runs the proxy example offline, and it compacts what it forwards", async () => {
  const { scratch, project, input } = fixture();
  const dir = join(scratch, "wrangler-proxy");
  mkdirSync(dir);
  for (const file of ["worker.js", "wrangler.toml"]) copyFileSync(join(root, "www", "worker", file), join(dir, file));
  symlinkSync(join(project, "node_modules"), join(dir, "node_modules"), "dir");
  const long = JSON.parse(readFileSync(input, "utf8")).swe.messages;

  const llm = await startLlmServer();
  const dev = await wranglerDev(dir, { UPSTREAM_URL: `${llm.url}/upstream/v1`, CONTEXT_WINDOW: "32000" });
  try {
    const res = await fetch(`${dev.url}v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-wrangler" },
      body: JSON.stringify({ model: "gpt-test", messages: long }),
      signal: AbortSignal.timeout(120_000),
    });
    const answer = await res.json();
    assert.equal(res.status, 200, `${JSON.stringify(answer)}\n${dev.output()}`);
    assert.equal(res.headers.get("x-ctxfold-compacted"), "llm");
    const forwarded = llm.requests.at(-1).body.messages;
    assert.ok(forwarded.length < long.length, `${long.length} -> ${forwarded.length}`);
    assert.ok(forwarded.some((m) => typeof m.content === "string" && m.content.startsWith("<ctxfold-summary")));
    assert.equal(answer.choices[0].message.content, `upstream saw ${forwarded.length} messages`);
  } finally {
    await dev.stop();
    await llm.stop();
  }
});
