// The fixture every runtime test uses: the package as users get it. `npm pack` makes the tarball (so the
// "files" list and exports map are what is tested, not the work tree), and a scratch project outside the
// repo installs it, beside the consumer entry files, the shared scenario and the input conversations.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConversations } from "./corpus.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = join(here, "..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** Packs and installs the package; returns the scratch directory (the fixture project is `project/` in it). */
export function prepareFixture() {
  const conversations = loadConversations(); // first: a missing corpus should fail before any scratch exists
  const scratch = mkdtempSync(join(tmpdir(), "ctxfold-pkg-tests-"));
  try {
    const packed = JSON.parse(
      execFileSync(npm, ["pack", "--json", "--pack-destination", scratch], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }),
    )[0];
    const project = join(scratch, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "ctxfold-fixture", private: true }));
    execFileSync(npm, ["install", "--no-audit", "--no-fund", "--no-package-lock", join(scratch, packed.filename)], {
      cwd: project,
      stdio: ["ignore", "ignore", "inherit"],
    });
    for (const file of readdirSync(join(here, "fixture"))) copyFileSync(join(here, "fixture", file), join(project, file));
    for (const shared of ["scenario.mjs", "client-scenario.mjs"]) copyFileSync(join(here, shared), join(project, shared));
    writeFileSync(join(project, "input.json"), JSON.stringify(conversations));
    writeFileSync(join(scratch, "packed.json"), JSON.stringify(packed));
    return scratch;
  } catch (e) {
    rmSync(scratch, { recursive: true, force: true });
    throw e;
  }
}

/** The fixture prepared by run.mjs (it passes the scratch directory in CTXFOLD_FIXTURE). */
export function fixture() {
  const scratch = process.env.CTXFOLD_FIXTURE;
  if (!scratch) throw new Error("CTXFOLD_FIXTURE is not set: run the package tests with `node pkg-tests/run.mjs`");
  return { scratch, project: join(scratch, "project"), input: join(scratch, "project", "input.json") };
}
