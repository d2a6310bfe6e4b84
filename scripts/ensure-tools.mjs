// Installs what `npm run build` needs and a fresh clone lacks: the wasm32 target, the wasm-bindgen CLI at
// exactly the version the crate pins (the generated glue must match the crate's wasm-bindgen), and the npm
// dev dependencies (wasm-opt from `binaryen`, `workerd`, `esbuild`). Every check is a cheap probe, so a
// warm build pays almost nothing; every install runs only when its probe fails.
// Usable on its own: `node scripts/ensure-tools.mjs`.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { probe, run } from "./exec.mjs";

const WASM_TARGET = "wasm32-unknown-unknown";

/**
 * Cargo's arguments for the wasm build, shared by the build and the lint so both compile the same code:
 * the target, with SIMD128 on (the scanner's 16-byte chunks are classified by vector comparisons,
 * src/counting/scanner/lib.rs). Every runtime the package supports runs SIMD128: Node 16.4+, workerd,
 * Chrome 91+, Firefox 89+, Safari 16.4+. And the standard library's sources named as rustc names them when the
 * `rust-src` component is absent (`/rustc/<commit>/library/...`): with it installed (rust-analyzer installs it),
 * rustc writes the local path of those sources into the panic locations of the standard library's code compiled
 * into the crate, so the same sources built on two machines gave two modules (640 bytes apart on one build), each
 * holding its builder's home directory.
 */
export function wasmCargoArgs(root) {
  const flags = ["-C", "target-feature=+simd128"];
  const sysroot = probe("rustc", ["--print", "sysroot"], { cwd: root });
  const commit = probe("rustc", ["-vV"], { cwd: root })?.match(/^commit-hash: (\S+)$/m)?.[1];
  if (sysroot && commit) flags.push(`--remap-path-prefix=${join(sysroot, "lib", "rustlib", "src", "rust")}=/rustc/${commit}`);
  return ["--target", WASM_TARGET, "--config", `target.${WASM_TARGET}.rustflags = ${JSON.stringify(flags)}`];
}

export function ensureRustTarget(root) {
  const installed = probe("rustup", ["target", "list", "--installed"], { cwd: root });
  if (installed === null) {
    // No rustup (e.g. a distro Rust): we cannot add targets, so only check that the std for wasm exists.
    const sysroot = probe("rustc", ["--print", "sysroot"], { cwd: root });
    if (sysroot && existsSync(join(sysroot, "lib", "rustlib", WASM_TARGET))) return;
    throw new Error(`the Rust target ${WASM_TARGET} is missing and rustup is not available to add it`);
  }
  if (!installed.split("\n").includes(WASM_TARGET)) run("rustup", ["target", "add", WASM_TARGET], { cwd: root });
}

/** The exact version in Cargo.toml's `wasm-bindgen = "=X"` (or `{ version = "=X", ... }`) line. */
export function pinnedWasmBindgenVersion(root) {
  const toml = readFileSync(join(root, "Cargo.toml"), "utf8");
  const m = toml.match(/^\s*wasm-bindgen\s*=\s*(?:"([^"]*)"|\{[^}]*?\bversion\s*=\s*"([^"]*)")/m);
  const req = m && (m[1] ?? m[2]);
  if (!req || !req.startsWith("=")) {
    throw new Error('Cargo.toml must pin wasm-bindgen exactly (wasm-bindgen = "=X.Y.Z"): the CLI has to match it');
  }
  return req.slice(1).trim();
}

/** Path of a wasm-bindgen CLI at `version`, installing it with cargo if none is found. */
export function ensureWasmBindgen(root) {
  const version = pinnedWasmBindgenVersion(root);
  // cargo's bin dir first: it is where `cargo install` puts the CLI, and it may not be on PATH (e.g. in CI).
  const cargoBin = join(process.env.CARGO_HOME ?? join(homedir(), ".cargo"), "bin", "wasm-bindgen");
  const matches = (bin) => probe(bin, ["--version"]) === `wasm-bindgen ${version}`;
  for (const bin of [cargoBin, "wasm-bindgen"]) if (matches(bin)) return bin;
  // Not --locked: the CLI's own lockfile pins a crate version the registry no longer serves, so
  // `cargo install --locked` fails; an unlocked install resolves current compatible dependencies.
  run("cargo", ["install", "wasm-bindgen-cli", "--version", `=${version}`], { cwd: root });
  if (matches(cargoBin)) return cargoBin;
  throw new Error(`installed wasm-bindgen-cli ${version}, but ${cargoBin} --version does not report it`);
}

/** Runs `npm ci` (or `npm install` without a lockfile) unless every devDependency is installed at its pin. */
export function ensureNpmDeps(root) {
  const { devDependencies = {} } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const installedAtPin = ([name, version]) => {
    const manifest = join(root, "node_modules", name, "package.json");
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === version;
  };
  if (Object.entries(devDependencies).every(installedAtPin)) return;
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const hasLock = existsSync(join(root, "package-lock.json"));
  run(npm, [hasLock ? "ci" : "install", "--no-audit", "--no-fund"], { cwd: root });
}

export function ensureTools(root) {
  ensureRustTarget(root);
  const wasmBindgen = ensureWasmBindgen(root);
  ensureNpmDeps(root);
  return { wasmBindgen };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  ensureTools(fileURLToPath(new URL("..", import.meta.url)));
}
