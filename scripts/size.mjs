// Prints the raw and gzip size of what a browser downloads (web build: wasm + JS glue), on every build,
// so a size regression is visible in the change that causes it. DESIGN.md's budget: ≤ 150 KB gzip.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET_GZIP = 150 * 1024;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`.padStart(11);

export function reportSize(webDir, files = ["ctxfold_bg.wasm", "ctxfold.js"]) {
  let raw = 0, gzip = 0;
  console.log(`size of the web build${" ".repeat(8)}raw       gzip`);
  for (const file of files) {
    const bytes = readFileSync(join(webDir, file));
    const zipped = gzipSync(bytes, { level: 9 }).length;
    raw += bytes.length;
    gzip += zipped;
    console.log(`  ${file.padEnd(20)}${kib(bytes.length)}${kib(zipped)}`);
  }
  const verdict = gzip <= BUDGET_GZIP ? "within" : "OVER";
  console.log(`  ${"total".padEnd(20)}${kib(raw)}${kib(gzip)}  (${verdict} the ${BUDGET_GZIP / 1024} KiB gzip budget)`);
  return { raw, gzip };
}
