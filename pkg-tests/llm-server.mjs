// A local stand-in for an LLM provider, on 127.0.0.1 only, for the summarizer client, the Worker
// example and the demo page. It speaks OpenAI Chat Completions and Anthropic Messages, records every
// request it receives (so tests can assert what was sent), and picks its behaviour from the path
// prefix, so a test in any runtime chooses a case by URL alone:
//   /ok/…            a normal answer (a short summary naming the model and the max_tokens it was asked for)
//   /status/NNN/…    that HTTP status, with an error body that echoes the request's credentials
//                    (as some providers do), so tests can prove the client never repeats the key
//   /garbage/…       200 with an HTML body
//   /slow/…          headers never sent: the client's timeout must fire (held until stop())
//   /stall/…         200 and the first bytes of a body, then nothing: the timeout must fire while the body is read
//   /upstream/…      an answer to the conversation, a chat completion, a Responses response or an Anthropic
//                    message by the path (the Worker example's upstream)
//   /openai/…        OpenAI's documented checks of the length limit: a reasoning model (o-series, gpt-5) sent
//                    `max_tokens` gets its 400 (`unsupported_parameter`); otherwise a summary naming the field used
//   /anthropic/…     Anthropic's: a Messages request without `max_tokens` gets its 400 (`invalid_request_error`)
//   /window/N/…      a chat model with a context of N tokens, counted as a quarter of the request's characters
//                    (higher than ctxfold's estimate): over it, OpenAI's context_length_exceeded 400
// CORS is open so pages on another local port can call it.
import { createServer } from "node:http";

export const SUMMARY_PREFIX = "Summary from the local test server";

export async function startLlmServer() {
  const requests = [];
  const held = new Set();
  const server = createServer(async (req, res) => {
    res.setHeader("access-control-allow-origin", "*");
    if (req.method === "OPTIONS") {
      res.writeHead(204, { "access-control-allow-headers": "*", "access-control-allow-methods": "POST" }).end();
      return;
    }
    let text = "";
    for await (const chunk of req) text += chunk;
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    requests.push({ method: req.method, path: req.url, headers: req.headers, body, text });
    const anthropic = req.url.endsWith("/v1/messages");
    const json = (status, value) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));

    const status = req.url.match(/^\/status\/(\d{3})\//);
    if (status) {
      const credentials = req.headers.authorization ?? req.headers["x-api-key"] ?? "";
      json(Number(status[1]), { error: { message: `Request refused for credentials ${credentials}`, type: "test_error" } });
    } else if (req.url.startsWith("/garbage/")) {
      res.writeHead(200, { "content-type": "text/html" }).end("<html>not an API</html>");
    } else if (req.url.startsWith("/slow/")) {
      held.add(res);
      res.on("close", () => held.delete(res));
    } else if (req.url.startsWith("/stall/")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"choices": [');
      held.add(res);
      res.on("close", () => held.delete(res));
    } else if (req.url.startsWith("/ok/")) {
      const summary = `${SUMMARY_PREFIX} (model ${body?.model}, max_tokens ${body?.max_tokens}): the user asked for help; ` +
        "the assistant inspected files and ran commands; work continues from the last kept messages.";
      if (anthropic) json(200, { type: "message", role: "assistant", content: [{ type: "text", text: summary }], stop_reason: "end_turn" });
      else json(200, { object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: summary }, finish_reason: "stop" }] });
    } else if (req.url.startsWith("/openai/")) {
      const reasoning = /^(o\d|gpt-5)/.test(String(body?.model).split("/").pop().toLowerCase());
      if (reasoning && body?.max_tokens !== undefined) {
        json(400, { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: "invalid_request_error", param: "max_tokens", code: "unsupported_parameter" } });
      } else {
        const field = body?.max_completion_tokens !== undefined ? "max_completion_tokens" : "max_tokens";
        json(200, { object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: `${SUMMARY_PREFIX} (${field} ${body?.[field]})` }, finish_reason: "stop" }] });
      }
    } else if (req.url.startsWith("/anthropic/")) {
      if (body?.max_tokens === undefined) json(400, { type: "error", error: { type: "invalid_request_error", message: "max_tokens: Field required" } });
      else json(200, { type: "message", role: "assistant", content: [{ type: "text", text: `${SUMMARY_PREFIX} (max_tokens ${body.max_tokens})` }], stop_reason: "end_turn" });
    } else if (req.url.match(/^\/window\/(\d+)\//)) {
      const window = Number(req.url.match(/^\/window\/(\d+)\//)[1]);
      const counted = Math.ceil(JSON.stringify(body?.messages ?? []).length / 4);
      if (counted > window) {
        json(400, { error: { message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${counted} tokens. Please reduce the length of the messages.`, type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } });
      } else {
        json(200, { object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: `answered ${counted} tokens` }, finish_reason: "stop" }] });
      }
    } else if (req.url.startsWith("/upstream/")) {
      const count = Array.isArray(body?.messages) ? body.messages.length : Array.isArray(body?.input) ? body.input.length : 0;
      if (req.url.endsWith("/responses")) {
        json(200, { object: "response", model: body?.model, status: "completed", output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: `upstream saw ${count} items` }] }] });
        return;
      }
      if (anthropic) {
        json(200, { type: "message", role: "assistant", model: body?.model, content: [{ type: "text", text: `upstream saw ${count} messages` }], stop_reason: "end_turn" });
        return;
      }
      json(200, {
        object: "chat.completion",
        model: body?.model,
        choices: [{ index: 0, message: { role: "assistant", content: `upstream saw ${count} messages` }, finish_reason: "stop" }],
      });
    } else {
      json(404, { error: { message: `no test route for ${req.url}` } });
    }
  });
  await new Promise((ready, fail) => server.once("error", fail).listen(0, "127.0.0.1", ready));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async stop() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}
