// Every format through the installed package (Node ESM): see fixture/formats.mjs for what is asserted.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

const examples = fileURLToPath(new URL("./formats/", import.meta.url));

for (const file of readdirSync(examples).filter((f) => f.endsWith(".json")).sort()) {
  const format = file.replace(/\.json$/, "");
  test(`${format}: identity, body shape, prune, compaction, validate and repair in the packed package`, () => {
    const { project } = fixture();
    const r = spawnSync(process.execPath, [join(project, "formats.mjs"), join(examples, file), format], { cwd: project, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr || r.stdout);
    assert.equal(r.stdout.trim(), `ok ${format}`);
  });
}

// Tools the provider runs (Anthropic's web search and MCP connector, the AI SDK's provider-executed tools)
// answer their call in the assistant's own message; the Responses shell tool answers one result per command.
test("results a provider gives in the call's own message, and shell outputs, through the packed package", async () => {
  const { project } = fixture();
  const { validate, repair, prune } = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);
  const long = "output line\n".repeat(300);
  const anthropic = { messages: [
    { role: "user", content: "Look it up." },
    { role: "assistant", content: [
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", url: "https://example.com", title: "E", encrypted_content: long, page_age: null }] },
      { type: "mcp_tool_use", id: "mcptoolu_1", name: "fetch", server_name: "docs", input: {} },
      { type: "mcp_tool_result", tool_use_id: "mcptoolu_1", is_error: false, content: [{ type: "text", text: long }] },
      { type: "text", text: "Found it." },
    ] },
    { role: "user", content: "Thanks." },
  ] };
  const aiSdk = [
    { role: "user", content: "Search." },
    { role: "assistant", content: [
      { type: "tool-call", toolCallId: "ws1", toolName: "web_search", input: {}, providerExecuted: true },
      { type: "tool-result", toolCallId: "ws1", toolName: "web_search", output: { type: "json", value: [] } },
      { type: "text", text: "Nothing found." },
    ] },
  ];
  for (const [history, format] of [[anthropic, "anthropic"], [aiSdk, "ai-sdk"]]) {
    const v = validate(history);
    assert.deepEqual([v.format, v.valid, v.problems, v.pending], [format, true, [], []], format);
    assert.deepEqual(repair(history).repairs, [], `${format}: nothing to repair`);
  }
  const pruned = prune(anthropic, { protectTokens: 0, minimumPruneTokens: 0 });
  assert.deepEqual(pruned.pruned.map((p) => p.toolCallId), ["mcptoolu_1"], "a server tool's result is never replaced");
  assert.equal(pruned.messages.messages[1].content[1], anthropic.messages[1].content[1]);
  const shell = { input: [
    { role: "user", content: "Build it." },
    { type: "shell_call", call_id: "call_s1", action: { commands: ["make", "make test"] }, status: "completed" },
    { type: "shell_call_output", call_id: "call_s1", output: [
      { stdout: long, stderr: "", outcome: { type: "exit", exit_code: 0 } },
      { stdout: "", stderr: long, outcome: { type: "exit", exit_code: 2 } },
    ] },
    { role: "assistant", content: "The tests fail." },
  ] };
  assert.equal(validate(shell).valid, true);
  const cleared = prune(shell, { protectTokens: 0, minimumPruneTokens: 0 }).messages.input[2].output;
  assert.deepEqual(cleared.map((c) => [c.stderr, c.outcome.exit_code]), [["", 0], ["", 2]], "one result per command, exit codes kept");
  assert.notEqual(cleared[0].stdout, long);
  const lonely = { input: shell.input.slice(0, 2) };
  assert.deepEqual(validate(lonely).pending.map((p) => [p.id, p.name]), [["call_s1", "shell"]], "a shell call waiting for its output");
});
