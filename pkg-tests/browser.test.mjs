// The package in Chromium, from the installed tarball, three ways users load it:
// - plain: a page with <script type="module"> and an import map to node_modules/ctxfold/dist/browser.js;
// - Vite: a production `vite build` of a page that imports "ctxfold", served from its output folder;
// - webpack: a production webpack 5 build of the same page script, with no configuration beyond the entry;
// - Vite dev: the Vite dev server (dependency pre-bundling included) serving the same page.
// Each page runs the shared scenario (checks.mjs) and the client scenario (client-checks.mjs) against
// the local test server, and reports what happened before and during init().
import assert from "node:assert/strict";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { build, createServer } from "vite";
import webpack from "webpack";
import { launchChromium, pageReport, serveStatic } from "./browser.mjs";
import { checkRuntime } from "./checks.mjs";
import { checkClient } from "./client-checks.mjs";
import { fixture } from "./fixture.mjs";
import { startLlmServer } from "./llm-server.mjs";

let chromium;
const launched = () => (chromium ??= launchChromium());
after(async () => chromium && (await chromium).close());

/** Each way of loading the package: `{ root, page }` (a folder served as static files) or `{ server, page }`. */
const SITES = {
  plain: async () => ({ root: fixture().project, page: "plain.html" }),
  vite: async () => {
    const { scratch, project, input } = fixture();
    const outDir = join(scratch, "vite-dist");
    await build({ root: project, configFile: false, logLevel: "warn", build: { outDir, emptyOutDir: true } });
    copyFileSync(input, join(outDir, "input.json"));
    return { root: outDir, page: "index.html" };
  },
  webpack: async () => {
    const { scratch, project, input } = fixture();
    const outDir = join(scratch, "webpack-dist");
    const config = { mode: "production", context: project, entry: "./browser-page.mjs", output: { path: outDir, filename: "main.js" } };
    const stats = await new Promise((done, fail) => webpack(config, (err, result) => (err ? fail(err) : done(result))));
    if (stats.hasErrors()) throw new Error(stats.toString("errors-only"));
    writeFileSync(join(outDir, "index.html"), '<!doctype html><meta charset="utf-8"><title>ctxfold: webpack</title><script src="main.js"></script>\n');
    copyFileSync(input, join(outDir, "input.json"));
    return { root: outDir, page: "index.html" };
  },
  viteDev: async () => {
    const requests = [];
    const logRequests = {
      name: "log-requests",
      // A block body: a function returned from configureServer would be taken as a post-middleware hook.
      configureServer(s) {
        s.middlewares.use((req, _res, next) => {
          requests.push(req.url.split("?")[0]);
          next();
        });
      },
    };
    const dev = await createServer({
      root: fixture().project, configFile: false, logLevel: "warn", plugins: [logRequests],
      server: { host: "127.0.0.1", port: 0, strictPort: false, hmr: false },
    });
    await dev.listen();
    return { server: { url: dev.resolvedUrls.local[0], requests, stop: () => dev.close() }, page: "index.html" };
  },
};

const runs = {};
/** Opens the site's page once in Chromium; every check below reads the same run. */
function runSite(name) {
  runs[name] ??= (async () => {
    const site = await SITES[name]();
    const { browser } = await launched();
    const files = site.server ?? (await serveStatic(site.root));
    const llm = await startLlmServer();
    try {
      const { report, errors } = await pageReport(browser, `${files.url}${site.page}?llm=${encodeURIComponent(llm.url)}`);
      assert.equal(report.fatal, undefined, `the page failed: ${report.fatal}`);
      return { ...report, errors, fetched: files.requests, llmRequests: llm.requests, root: site.root };
    } finally {
      await files.stop();
      await llm.stop();
    }
  })();
  return runs[name];
}

const LABELS = {
  plain: "plain <script type=\"module\"> page", vite: "Vite production build", webpack: "webpack 5 production build", viteDev: "Vite dev server",
};
for (const [name, label] of Object.entries(LABELS)) {
  checkRuntime(`Chromium, ${label}`, async () => (await runSite(name)).report);
  checkClient(`Chromium, ${label}: openai_summarizer, anthropic_summarizer, compact`, async () => {
    const run = await runSite(name);
    return { report: run.client, requests: run.llmRequests };
  });

  test(`Chromium, ${label}: a call before init() throws NOT_INITIALIZED; init() loads the .wasm once`, async () => {
    const run = await runSite(name);
    assert.deepEqual(
      { threw: run.early.threw, isError: run.early.isError, name: run.early.name, code: run.early.code, path: run.early.path },
      { threw: true, isError: true, name: "CtxfoldError", code: "NOT_INITIALIZED", path: "estimate" },
      run.early.message,
    );
    assert.equal(run.sharedLoad, true, "two concurrent init() calls return the same promise");
    const wasmFetches = run.fetched.filter((p) => p.endsWith(".wasm"));
    assert.equal(wasmFetches.length, 1, `fetched: ${run.fetched.join(", ")}`);
    // The client scenario's failing requests (401, 500, a refused port, …) are logged by Chromium on
    // purpose; anything else logged as an error is a failure.
    const unexpected = run.errors.filter((e) => !e.startsWith("Failed to load resource:"));
    assert.deepEqual(unexpected, [], "no page errors or other console errors");
  });
}

test("Chromium: images its own encoders made (PNG, JPEG, WebP; data URLs and bytes) cost what OpenAI bills for their size", async () => {
  const { images } = await runSite("plain");
  const expected = {};
  for (const format of ["png", "jpeg", "webp"]) {
    for (const how of ["data URL", "bytes"]) {
      // 1920 × 1080 scales to 1365 × 768: 3 × 2 tiles of 512, 85 + 6 × 170. 300 × 200: one tile.
      expected[`${format} 1920x1080 ${how}`] = 1105;
      expected[`${format} 300x200 ${how}`] = 255;
    }
  }
  assert.deepEqual(images, expected);
});

for (const [name, dir] of [["vite", "assets"], ["webpack", "."]]) {
  test(`the ${LABELS[name]} took the package's browser entry and emitted the .wasm as an asset`, async () => {
    const run = await runSite(name);
    const assets = readdirSync(join(run.root, dir));
    assert.ok(assets.some((f) => f.endsWith(".wasm")), `assets: ${assets.join(", ")}`);
    const js = assets.filter((f) => f.endsWith(".js")).map((f) => readFileSync(join(run.root, dir, f), "utf8")).join("\n");
    assert.match(js, /NOT_INITIALIZED/, "the bundle contains dist/browser.js");
    assert.doesNotMatch(js, /node:fs|readFileSync/, "nothing from the Node entry");
  });
}
