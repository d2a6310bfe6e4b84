// The summarizer clients and compact inside the real workerd runtime, from the installed tarball: the
// Worker's fetch() goes to the local test server (allowed by a loopback-only outbound in the config).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkClient } from "./client-checks.mjs";
import { fixture } from "./fixture.mjs";
import { startLlmServer } from "./llm-server.mjs";
import { bundleWorker, serveWorker } from "./workerd.mjs";

checkClient("workerd: openai_summarizer, anthropic_summarizer, compact in a Worker", async () => {
  const { scratch, project, input } = fixture();
  const outDir = join(scratch, "workerd-client");
  const bundle = await bundleWorker(project, outDir, "client-worker.js");
  const server = await startLlmServer();
  const worker = await serveWorker(outDir, bundle.wasmModules, { localNetwork: true });
  try {
    const { tau } = JSON.parse(readFileSync(input, "utf8"));
    const response = await fetch(worker.url, {
      method: "POST",
      body: JSON.stringify({ server: server.url, messages: tau.messages }),
      signal: AbortSignal.timeout(120_000),
    });
    const body = await response.text();
    assert.equal(response.status, 200, `worker answered ${response.status}: ${body}`);
    return { report: JSON.parse(body), requests: server.requests };
  } finally {
    await worker.stop();
    await server.stop();
  }
});
