// `node scripts/check-imports.mjs`: fails when modules of src/ import each other, directly or round a
// longer loop. A cycle means two files cannot be read (or changed)
// one without the other; shared types belong in a module both sides import.
//
// Method: every `crate::…` and `super::…` path outside `#[cfg(test)]` modules is resolved to the
// longest module it names (a file, or a folder's mod.rs); `mod x;` adds an edge from a folder's mod.rs
// to its child. A child that reaches its siblings through the parent's re-exports
// (`crate::options::Options` from options/read.rs) is a cycle too: siblings name each other directly
// (`super::values::Options`). Macros (`crate::name!`) are not imports.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const src = fileURLToPath(new URL("../src/", import.meta.url));

/**
 * Module path ("a::b", "" for the crate root) of every .rs file of the crate whose root folder is `root`,
 * tests excluded. A folder with its own Cargo.toml is another crate (`crate::` means its own root there),
 * checked apart: `crates` lists them.
 */
function modules(root, dir = root, out = new Map()) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(root, path);
    if (entry.isDirectory()) {
      if (rel !== "tests" && !existsSync(join(path, "Cargo.toml"))) modules(root, path, out);
    } else if (entry.name.endsWith(".rs")) {
      const parts = rel.slice(0, -3).split("/");
      if (parts.at(-1) === "mod" || rel === "lib.rs") parts.pop();
      out.set(parts.join("::"), path);
    }
  }
  return out;
}

/** The file's text without its `#[cfg(test)]` items: a test may use anything. */
function withoutTests(text) {
  const lines = text.split("\n");
  const kept = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*#\[cfg\(test\)\]/.test(lines[i])) {
      // Skip the attribute and the item it guards: up to the line that closes its braces.
      let depth = 0;
      let opened = false;
      for (i++; i < lines.length; i++) {
        for (const c of lines[i]) {
          if (c === "{") (depth++, (opened = true));
          if (c === "}") depth--;
        }
        if ((opened && depth === 0) || (!opened && lines[i].trim().endsWith(";"))) break;
      }
      continue;
    }
    kept.push(lines[i].replace(/\/\/.*$/, ""));
  }
  return kept.join("\n");
}

/** Edges module → modules it names, each resolved to the longest known module. */
function imports(all) {
  const edges = new Map();
  for (const [name, path] of all) {
    const parent = name.includes("::") ? name.slice(0, name.lastIndexOf("::")) : "";
    const isFolder = path.endsWith("mod.rs") || path.endsWith("lib.rs");
    const targets = new Set();
    const text = withoutTests(readFileSync(path, "utf8"));
    for (const m of text.matchAll(/\b(crate|super)((?:::[a-z_][a-z0-9_]*)+)\b(?!\s*!)/g)) {
      const base = m[1] === "crate" ? "" : parent; // `super` of a::b::c (file or folder) is a::b
      const segments = m[2].slice(2).split("::");
      let target = null;
      for (let n = segments.length; n > 0 && target === null; n--) {
        const candidate = [base, ...segments.slice(0, n)].filter(Boolean).join("::");
        if (all.has(candidate)) target = candidate;
      }
      if (target === null && all.has(base)) target = base;
      if (target !== null && target !== name) targets.add(target);
    }
    if (isFolder) {
      for (const m of text.matchAll(/^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;/gm)) {
        const child = [name, m[1]].filter(Boolean).join("::");
        if (all.has(child)) targets.add(child);
      }
    }
    edges.set(name, targets);
  }
  return edges;
}

/** Every strongly connected component of more than one node (Tarjan), each sorted. */
function cycles(edges) {
  let index = 0;
  const stack = [];
  const info = new Map();
  const found = [];
  const visit = (v) => {
    info.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!info.has(w)) {
        visit(w);
        info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
      } else if (info.get(w).onStack) {
        info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
      }
    }
    if (info.get(v).low === info.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        info.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!info.has(v)) visit(v);
  return found;
}

/** The root folders of the crates under src/: src/ itself and every folder below it with a Cargo.toml. */
function crates(dir = src, out = [src]) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (existsSync(join(path, "Cargo.toml"))) out.push(path);
    crates(path, out);
  }
  return out;
}

let count = 0;
let failed = false;
for (const root of crates()) {
  const all = modules(root);
  const edges = imports(all);
  const name = relative(src, root) || "src";
  for (const cycle of cycles(edges)) {
    failed = true;
    console.error(`modules of ${name} import each other: ${cycle.map((m) => m || "lib").join(", ")}`);
    for (const m of cycle) console.error(`  ${m || "lib"} → ${[...edges.get(m)].filter((t) => cycle.includes(t)).join(", ")}`);
  }
  count += all.size;
}
if (failed) process.exit(1);
console.log(`imports: ${count} modules, none importing each other`);
