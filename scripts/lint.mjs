// `node scripts/lint.mjs`, part of `npm test`: the code's shape, checked before anything runs. Modules
// that import each other (scripts/check-imports.mjs), formatting by scripts/rustfmt.toml, and clippy with every
// warning an error, natively (the core and its tests) and for wasm32 (the binding, compiled only there).
// Installs rustfmt and clippy through rustup when a toolchain lacks them.
import { fileURLToPath } from "node:url";
import { ensureRustTarget, wasmCargoArgs } from "./ensure-tools.mjs";
import { probe, run } from "./exec.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

for (const [component, check] of [["rustfmt", ["fmt", "--version"]], ["clippy", ["clippy", "--version"]]]) {
  if (probe("cargo", check, { cwd: root }) === null) run("rustup", ["component", "add", component], { cwd: root });
}
ensureRustTarget(root);
run(process.execPath, ["scripts/check-imports.mjs"], { cwd: root });
// The settings are passed by path: the top level holds only what the product needs (`npm run fmt` applies them).
run("cargo", ["fmt", "--all", "--", "--check", "--config-path", "scripts/rustfmt.toml"], { cwd: root });
run("cargo", ["clippy", "--quiet", "--workspace", "--all-targets", "--", "-D", "warnings"], { cwd: root });
run("cargo", ["clippy", "--quiet", "--release", ...wasmCargoArgs(root), "--workspace", "--lib", "--", "-D", "warnings"], { cwd: root });
