// Runs the fixture's Worker in the real workerd binary (from the npm `workerd` package).
// Bundling follows wrangler: esbuild resolves "ctxfold" with the conditions ["workerd", "worker", "browser"],
// and every imported .wasm stays a separate Wasm module in the worker config (Workers compile it at
// upload; they refuse to compile Wasm from bytes at run time), imported by a relative name.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { build } from "esbuild";

const workerd = createRequire(import.meta.url)("workerd"); // { default: binary path, compatibilityDate }

/** Bundles `<project>/<entry>` into `outDir`; returns the bundle's input files and its wasm module names. */
export async function bundleWorker(project, outDir, entry = "worker.js") {
  mkdirSync(outDir, { recursive: true });
  const wasm = new Map(); // module name → file
  const result = await build({
    entryPoints: [join(project, entry)],
    outfile: join(outDir, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    metafile: true,
    logLevel: "warning",
    plugins: [{
      name: "wasm-modules",
      setup(b) {
        b.onResolve({ filter: /\.wasm$/ }, (args) => {
          const file = resolve(args.resolveDir, args.path);
          const name = basename(file);
          if (wasm.has(name) && wasm.get(name) !== file) throw new Error(`two different wasm modules named ${name}`);
          wasm.set(name, file);
          return { path: `./${name}`, external: true };
        });
      },
    }],
  });
  for (const [name, file] of wasm) copyFileSync(file, join(outDir, name));
  return { inputs: Object.keys(result.metafile.inputs), wasmModules: [...wasm.keys()] };
}

// `bindings`: text bindings (`env.NAME` in the Worker). `localNetwork`: let the Worker's fetch() reach
// 127.0.0.1 (workerd's default outbound allows public addresses only), for the local test server.
function writeConfig(outDir, wasmModules, { bindings = {}, localNetwork = false } = {}) {
  const modules = [
    `(name = "worker.js", esModule = embed "worker.js")`,
    ...wasmModules.map((name) => `(name = ${JSON.stringify(name)}, wasm = embed ${JSON.stringify(name)})`),
  ];
  const config = join(outDir, "config.capnp");
  writeFileSync(config, `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)${localNetwork ? ', (name = "loopback", network = (allow = ["local"]))' : ""}],
  # Port 0: the OS picks a free port, and workerd reports it on the control fd.
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${modules.join(", ")}],
  compatibilityDate = "${workerd.compatibilityDate}",
  bindings = [${Object.entries(bindings).map(([name, text]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(text)})`).join(", ")}],${localNetwork ? '\n  globalOutbound = "loopback",' : ""}
);
`);
  return config;
}

/**
 * Serves a bundle made by bundleWorker; resolves to `{ url, stop }` once workerd listens.
 * `stop()` always ends the process (SIGTERM, then SIGKILL); it is also run if this process exits first.
 */
export async function serveWorker(outDir, wasmModules, configOptions) {
  const config = writeConfig(outDir, wasmModules, configOptions);
  // fd 3 is workerd's control channel: it writes {"event":"listen","socket":"http","port":N} when ready.
  const child = spawn(workerd.default, ["serve", config, "--control-fd=3"], { cwd: outDir, stdio: ["ignore", "inherit", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; process.stderr.write(d); });
  const exited = new Promise((done) => child.once("exit", (code, signal) => done(code ?? signal)));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const stop = async () => {
    process.off("exit", killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };

  const port = await new Promise((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`workerd did not listen within 30 s\n${stderr}`)), 30_000);
    createInterface({ input: child.stdio[3] }).on("line", (line) => {
      const msg = JSON.parse(line);
      if (msg.event === "listen" && msg.socket === "http") { clearTimeout(timer); ready(msg.port); }
    });
    exited.then((code) => { clearTimeout(timer); fail(new Error(`workerd exited (${code}) before listening\n${stderr}`)); });
  }).catch(async (e) => { await stop(); throw e; });

  return { url: `http://127.0.0.1:${port}/`, stop };
}
