// The package's TypeScript types, as a TypeScript user meets them: `tsc --strict` on a consumer file that
// imports "ctxfold" from the installed tarball (through the exports map's `types` condition).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { fixture } from "./fixture.mjs";

const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
/** The SDKs whose message types users pass in (dev dependencies, pinned). */
const SDKS = ["openai", "@anthropic-ai/sdk", "@google/genai", "ai"];

test("the types compile under tsc --strict and reject misuse", () => {
  const { project } = fixture();
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", types: [], skipLibCheck: false },
    files: ["types.ts", "types-client.ts", "types-session.ts", "types-sdk.ts"],
  }));
  // The SDKs' own types, as a user's project has them installed (the package's dev dependencies).
  for (const sdk of SDKS) {
    const link = join(project, "node_modules", sdk);
    mkdirSync(dirname(link), { recursive: true });
    if (!existsSync(link)) symlinkSync(fileURLToPath(new URL(`../node_modules/${sdk}`, import.meta.url)), link, "dir");
  }
  const r = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" });
  assert.equal(r.status, 0, `tsc reported:\n${r.stdout}${r.stderr}`);
});
