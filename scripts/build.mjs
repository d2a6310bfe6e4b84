// `npm run build`: the crate → dist/, the files the npm package ships (see DESIGN.md "Building").
//   cargo (wasm32, release) → wasm-bindgen (--target web, --target nodejs) → wasm-opt -Oz → entry files.
// Installs missing tools first (scripts/ensure-tools.mjs). `--if-needed` returns at once when dist/ is
// complete and newer than its inputs (`npm run demo` uses it so a demo does not wait for a rebuild).
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, renameSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { execFileSync } from "node:child_process";
import { ensureTools, wasmCargoArgs } from "./ensure-tools.mjs";
import { run } from "./exec.mjs";
import { reportSize } from "./size.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "dist");
const entries = join(root, "scripts", "entries");
const CRATE = "ctxfold";

// Rust 1.95's wasm32-unknown-unknown emits these proposals by default. wasm-opt would also read them from
// the module's target_features section, but naming them keeps the build working if that section goes.
const WASM_FEATURES = ["bulk-memory", "sign-ext", "nontrapping-float-to-int", "reference-types", "multivalue", "mutable-globals", "simd"];
// The features and producers sections only matter to tools; they are stripped from what ships.
// --flatten --rereloop first: binaryen rebuilds each function's control flow from scratch, which -Oz
// then shrinks further (0.6 KiB gzip; estimate's speed unchanged within the noise of a busy machine).
// --converge repeats -Oz until the module stops shrinking. --low-memory-unused: Rust's wasm32 data and
// stack start far above address 1024, so wasm-opt may fold small constant offsets into addresses.
// --zero-filled-memory: the module creates its own memory (it is not imported), so memory starts zeroed
// and zero bytes of data segments need not be stored. These last three: 0.7 KiB gzip.
const WASM_OPT_ARGS = [
  "--flatten", "--rereloop", "-Oz", "-Oz", "--converge", "--low-memory-unused", "--zero-filled-memory",
  ...WASM_FEATURES.map((f) => `--enable-${f}`), "--strip-producers", "--strip-target-features",
];

const OUTPUTS = [
  "web/ctxfold.js", "web/ctxfold_bg.wasm", "node/ctxfold_glue.js", "node/ctxfold.js", "node/ctxfold_bg.wasm", "node/package.json",
  "async.js", "estimate.js", "workerd.js", "node.mjs", "browser.js", "ctxfold.d.ts",
];
// The exports that are partly JavaScript, each file a factory over the glue: `compact` and the
// summarizer clients (their awaits), and `estimate` (its per-message cache's object map). Every entry
// imports them; the CommonJS entry inlines them.
const LAYERS = [
  { file: "async.js", factory: "asyncExports" },
  { file: "estimate.js", factory: "estimateExports" },
];
// Glue exports named like this are steps for the layers above, not part of the package's API: no entry
// re-exports them.
const isInternal = (name) => name.startsWith("__");

const newestMtime = (path) => {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
};

function distIsFresh() {
  const inputs = ["src", "Cargo.toml", "Cargo.lock", "scripts/build.mjs", "scripts/entries"].map((p) => join(root, p)).filter(existsSync);
  const outputs = OUTPUTS.map((p) => join(dist, p));
  if (!outputs.every(existsSync)) return false;
  return Math.min(...outputs.map((p) => statSync(p).mtimeMs)) > Math.max(...inputs.map(newestMtime));
}

/** The cargo target dir, wherever CARGO_TARGET_DIR or .cargo/config put it. */
function targetDir() {
  const meta = execFileSync("cargo", ["metadata", "--format-version", "1", "--no-deps"], { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 });
  return JSON.parse(meta).target_directory;
}

const sha256 = (...parts) => parts.reduce((h, p) => h.update(p), createHash("sha256")).digest("hex");

/** wasm-bindgen both targets, then wasm-opt; skipped when the cargo output and the tools are unchanged. */
function bindAndOptimize(wasmBindgen, crateWasm, stampFile) {
  const wasmOpt = join(root, "node_modules", "binaryen", "bin", "wasm-opt");
  const binaryen = readFileSync(join(root, "node_modules", "binaryen", "package.json"));
  const stamp = sha256(readFileSync(crateWasm), execFileSync(wasmBindgen, ["--version"]), binaryen, JSON.stringify(WASM_OPT_ARGS));
  const bound = ["web/ctxfold.js", "web/ctxfold_bg.wasm", "node/ctxfold_glue.js", "node/ctxfold_bg.wasm"];
  if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp && bound.every((p) => existsSync(join(dist, p)))) {
    console.log("wasm unchanged since the last build: wasm-bindgen and wasm-opt skipped");
    return;
  }
  for (const [target, dir] of [["web", "web"], ["nodejs", "node"]]) {
    rmSync(join(dist, dir), { recursive: true, force: true }); // no stale snippets from an older build
    run(wasmBindgen, ["--target", target, "--no-typescript", "--out-dir", join(dist, dir), crateWasm]);
  }
  // dist/node/ctxfold.js is the CommonJS entry (see commonJsEntry); the glue it wraps moves aside. The
  // glue finds its .wasm by __dirname, not by its own name, so the rename is safe.
  renameSync(join(dist, "node", `${CRATE}.js`), join(dist, "node", `${CRATE}_glue.js`));
  const web = join(dist, "web", `${CRATE}_bg.wasm`);
  const node = join(dist, "node", `${CRATE}_bg.wasm`);
  const sameModule = readFileSync(web).equals(readFileSync(node));
  // binaryen's npm build is JavaScript: run it with this node, and only once when both targets got the same module.
  run(process.execPath, [wasmOpt, ...WASM_OPT_ARGS, web, "-o", web]);
  if (sameModule) copyFileSync(web, node);
  else run(process.execPath, [wasmOpt, ...WASM_OPT_ARGS, node, "-o", node]);
  writeFileSync(stampFile, stamp);
}

async function writeEntries() {
  // Importing the glue only defines functions (it loads no wasm), so Node can list its exports here.
  const glue = await import(`${pathToFileURL(join(dist, "web", `${CRATE}.js`)).href}?t=${Date.now()}`);
  const exports = {
    // The glue's public exports (not `default`/`initSync`, which each entry handles itself).
    glue: Object.keys(glue).filter((n) => n !== "default" && n !== "initSync" && !isInternal(n)).sort(),
    // Per layer: calling its factory only defines the functions; their names are its exports.
    layers: [],
  };
  for (const { file, factory } of LAYERS) {
    const module = await import(`${pathToFileURL(join(entries, file)).href}?t=${Date.now()}`);
    exports.layers.push({ file, factory, names: Object.keys(module[factory]({})).sort() });
    copyFileSync(join(entries, file), join(dist, file));
  }
  writeFileSync(join(dist, "workerd.js"), withExports("workerd.js", esmExports(exports)));
  writeFileSync(join(dist, "node.mjs"), withExports("node.mjs", esmExports(exports)));
  writeFileSync(join(dist, "browser.js"), withExports("browser.js", browserExports(glue, exports)));
  writeFileSync(join(dist, "node", `${CRATE}.js`), commonJsEntry(exports));
  // The root package.json says "type": "module"; without this, Node would load the CommonJS glue as ESM.
  writeFileSync(join(dist, "node", "package.json"), '{"type":"commonjs"}\n');
  copyFileSync(join(root, "src", "wasm", `${CRATE}.d.ts`), join(dist, `${CRATE}.d.ts`));
  // Imported here, not at the top: on a fresh clone esbuild arrives with `npm ci`, which ensureTools runs.
  const { transformSync } = await import("esbuild");
  for (const file of SHIPPED_JS) stripComments(transformSync, join(dist, file));
}

const SHIPPED_JS = ["web/ctxfold.js", "node/ctxfold_glue.js", "node/ctxfold.js", ...LAYERS.map((l) => l.file), "workerd.js", "node.mjs", "browser.js"];

/**
 * Rewrites a shipped JS file without its comments (esbuild reprints the code, still formatted and with
 * every name kept; it is not minified). The comments are for whoever reads scripts/entries/ and the
 * Rust doc comments the glue repeats are in ctxfold.d.ts; in the package they were about a third of
 * the JS's gzip size, out of the 150 KiB budget.
 */
function stripComments(transformSync, path) {
  const { code } = transformSync(readFileSync(path, "utf8"), { loader: "js", legalComments: "none", charset: "utf8" });
  writeFileSync(path, code);
}

/** scripts/entries/<file> with the generated export lines in place of its `// @exports` marker. */
function withExports(file, lines) {
  const template = readFileSync(join(entries, file), "utf8");
  if (!template.includes("// @exports\n")) throw new Error(`scripts/entries/${file} lost its \`// @exports\` marker`);
  return template.replace("// @exports\n", `// @exports (generated by scripts/build.mjs)\n${lines.join("\n")}\n`);
}

/** workerd.js and node.mjs: the glue's public exports as they are, and the layers' built on the glue. */
function esmExports(exports) {
  return [
    ...exports.layers.map(({ file, factory }) => `import { ${factory} } from "./${file}";`),
    // initSync too, as `export *` gave it (a no-op here: the entry initialised at import).
    `export { ${[...exports.glue, "initSync"].join(", ")} } from "./web/${CRATE}.js";`,
    ...exports.layers.map(({ factory, names }) => `export const { ${names.join(", ")} } = ${factory}(glue);`),
  ];
}

/** browser.js: one guarded re-export per function (see the template), the layers' included. */
function browserExports(glue, exports) {
  const lines = [];
  for (const name of exports.glue) {
    const value = glue[name];
    // Exported Rust structs are classes: guarding them would break `new`; their constructors call
    // into the wasm only once the module is there anyway.
    const isClass = typeof value === "function" && /^class\b/.test(Function.prototype.toString.call(value));
    if (typeof value !== "function" || isClass) lines.push(`export { ${name} } from "./web/${CRATE}.js";`);
    else lines.push(`export const ${name} = guarded(${JSON.stringify(name)}, wasm.${name});`);
  }
  for (const { file, factory, names } of exports.layers) {
    lines.push(`import { ${factory} } from "./${file}";`, `const ${factory}Api = ${factory}(wasm);`);
    for (const name of names) lines.push(`export const ${name} = guarded(${JSON.stringify(name)}, ${factory}Api.${name});`);
  }
  return lines;
}

/**
 * dist/node/ctxfold.js, what `require("ctxfold")` loads: the CommonJS glue's public exports plus the
 * layers'. Node 18 cannot `require` an ES module, so each layer is inlined here with its one `export`
 * keyword dropped (the files are written to allow exactly that).
 */
function commonJsEntry(exports) {
  const lines = ["// The CommonJS entry (generated by scripts/build.mjs from scripts/entries/).", '"use strict";', `const glue = require("./${CRATE}_glue.js");`, ""];
  for (const { file, factory } of LAYERS) {
    const source = readFileSync(join(entries, file), "utf8");
    const marker = `export function ${factory}(`;
    if (source.split(marker).length !== 2 || /^\s*(import|export)\b/m.test(source.replace(marker, ""))) {
      throw new Error(`scripts/entries/${file} must have exactly one export, \`${marker}\`, and no imports`);
    }
    lines.push(source.replace(marker, `function ${factory}(`));
  }
  lines.push(...exports.glue.map((name) => `exports.${name} = glue.${name};`));
  for (const { factory, names } of exports.layers) {
    lines.push(`const ${factory}Api = ${factory}(glue);`, ...names.map((name) => `exports.${name} = ${factory}Api.${name};`));
  }
  lines.push("");
  return lines.join("\n");
}

async function main() {
  if (process.argv.includes("--if-needed") && distIsFresh()) {
    console.log("dist/ is up to date (--if-needed): build skipped");
    return;
  }
  const started = Date.now();
  const { wasmBindgen } = ensureTools(root);
  run("cargo", ["build", "--release", ...wasmCargoArgs(root), "--lib"], { cwd: root });
  const release = join(targetDir(), "wasm32-unknown-unknown", "release");
  mkdirSync(dist, { recursive: true });
  bindAndOptimize(wasmBindgen, join(release, `${CRATE}.wasm`), join(release, `${CRATE}.dist-stamp`));
  await writeEntries();
  // Outputs skipped above keep old mtimes; touch them all so `--if-needed` sees dist/ as newer than src/.
  const now = new Date();
  for (const p of OUTPUTS) utimesSync(join(dist, p), now, now);
  // What a browser downloads: the wasm, the glue and the browser entry that wraps it.
  reportSize(dist, ["web/ctxfold_bg.wasm", "web/ctxfold.js", "browser.js", ...LAYERS.map((l) => l.file)]);
  console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err) => {
  console.error(`build failed: ${err.message}`);
  process.exit(1);
});
