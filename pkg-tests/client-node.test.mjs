// The summarizer clients and compact in Node, ESM and CommonJS, from the installed tarball, against the
// local test server: the global fetch() the clients call is Node's own.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { checkClient } from "./client-checks.mjs";
import { fixture } from "./fixture.mjs";
import { startLlmServer } from "./llm-server.mjs";

for (const [runtime, entry] of [["Node ESM", "client-esm.mjs"], ["Node CommonJS", "client-cjs.cjs"]]) {
  checkClient(`${runtime}: openai_summarizer, anthropic_summarizer, compact`, async () => {
    const { project, input } = fixture();
    const server = await startLlmServer();
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [join(project, entry), server.url, input], {
        cwd: project, maxBuffer: 64 << 20, timeout: 120_000,
      });
      return { report: JSON.parse(stdout), requests: server.requests };
    } finally {
      await server.stop();
    }
  });
}
