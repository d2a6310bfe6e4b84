// The package in the real Cloudflare runtime: a module Worker that says `import … from "ctxfold"`,
// bundled through the package's "workerd" export condition and served by workerd on 127.0.0.1.
// The conversations are POSTed to it; it runs the shared scenario and answers with the report.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { checkRuntime } from "./checks.mjs";
import { fixture } from "./fixture.mjs";
import { bundleWorker, serveWorker } from "./workerd.mjs";

let bundleInputs = [];
checkRuntime("workerd: import { … } from \"ctxfold\" in a Worker", async () => {
  const { scratch, project, input } = fixture();
  const outDir = join(scratch, "workerd");
  const bundle = await bundleWorker(project, outDir);
  bundleInputs = bundle.inputs;
  const server = await serveWorker(outDir, bundle.wasmModules);
  try {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: readFileSync(input),
      signal: AbortSignal.timeout(120_000),
    });
    const body = await response.text();
    assert.equal(response.status, 200, `worker answered ${response.status}: ${body}`);
    return JSON.parse(body);
  } finally {
    await server.stop(); // always, pass or fail
  }
});

test("the Worker bundle took ctxfold's workerd entry (dist/workerd.js), not the Node one", () => {
  const fromPackage = bundleInputs.filter((f) => f.includes("node_modules/ctxfold/"));
  assert.ok(fromPackage.some((f) => f.endsWith("node_modules/ctxfold/dist/workerd.js")), fromPackage.join(", "));
  assert.ok(!fromPackage.some((f) => f.endsWith("/dist/node.mjs") || f.includes("/dist/node/")), fromPackage.join(", "));
});
