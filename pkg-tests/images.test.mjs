// Images through the installed package (Node ESM): their size read from the bytes a message holds, costed
// as each provider bills that size, in every format, and a model's own image billing carried from the plan
// to apply_summary. (browser.test.mjs checks images that Chromium's own encoders made.)
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { fixture } from "./fixture.mjs";

const { project } = fixture();
const { estimate, plan_compaction, apply_summary } = await import(pathToFileURL(join(project, "node_modules", "ctxfold", "dist", "node.mjs")).href);

/** The first bytes of a PNG of `width` × `height`: its signature and IHDR chunk, all the size is read from. */
function png(width, height) {
  const bytes = Buffer.alloc(33);
  Buffer.from("89504e470d0a1a0a0000000d49484452", "hex").copy(bytes);
  bytes.writeUInt32BE(width, 16);
  bytes.writeUInt32BE(height, 20);
  bytes.set([8, 6, 0, 0, 0], 24);
  return bytes;
}

/** One user turn asking about an image, in each format, the image as each format holds its bytes. */
function inEachFormat(bytes) {
  const b64 = bytes.toString("base64");
  const url = `data:image/png;base64,${b64}`;
  return {
    "openai-chat": [{ role: "user", content: [{ type: "text", text: "What is wrong here?" }, { type: "image_url", image_url: { url } }] }],
    "openai-responses": [{ role: "user", content: [{ type: "input_text", text: "What is wrong here?" }, { type: "input_image", image_url: url }] }],
    anthropic: [{ role: "user", content: [{ type: "text", text: "What is wrong here?" }, { type: "image", source: { type: "base64", media_type: "image/png", data: b64 } }] }],
    gemini: [{ role: "user", parts: [{ text: "What is wrong here?" }, { inlineData: { mimeType: "image/png", data: b64 } }] }],
    "ai-sdk": [{ role: "user", content: [{ type: "text", text: "What is wrong here?" }, { type: "image", image: new Uint8Array(bytes), mediaType: "image/png" }] }],
  };
}

const imageCost = (messages, options) => {
  const withImage = estimate(messages, options);
  const textOnly = estimate([{ role: "user", content: "What is wrong here?" }], options);
  return { format: withImage.format, tokens: withImage.perMessage[0] - textOnly.perMessage[0] };
};

test("an image costs what its provider bills for its size, in every format", () => {
  // A 1920 × 1080 screenshot: OpenAI 6 tiles (85 + 6 × 170); Anthropic at most about 1 600; Gemini 3 a fixed
  // 1 120. A 300 × 200 icon: one tile; 300 × 200 / 750.
  for (const [width, height, o200k, claude] of [[1920, 1080, 1105, 1600], [300, 200, 255, 80]]) {
    for (const [format, messages] of Object.entries(inEachFormat(png(width, height)))) {
      for (const [tokenizer, expected] of [["o200k", o200k], ["cl100k", o200k], ["claude", claude], ["gemini", 1120]]) {
        assert.deepEqual(imageCost(messages, { tokenizer }), { format, tokens: expected }, `${width}×${height} ${tokenizer}`);
      }
    }
  }
});

test("a model that bills images its own way: the plan carries it to apply_summary", () => {
  const screenshot = inEachFormat(png(1024, 1024))["openai-chat"][0];
  assert.equal(imageCost([screenshot], { model: "gpt-4o-mini" }).tokens, 2833 + 4 * 5667);
  assert.equal(imageCost([screenshot], { model: "gpt-4.1-mini" }).tokens, Math.ceil(1024 * 1.62));
  const history = [];
  for (let i = 0; i < 6; i++) {
    history.push({ ...screenshot, content: [{ type: "text", text: `Screenshot ${i}: what changed?` }, screenshot.content[1]] });
    history.push({ role: "assistant", content: `In screenshot ${i} the build failed at step ${i}.` });
  }
  history.push({ role: "user", content: "So what should I fix first?" });
  const plan = plan_compaction(history, { model: "gpt-4o-mini", force: true, keepRecentTurns: 1 });
  assert.equal(plan.imageModel, "gpt-4o-mini");
  assert.ok(plan.tokensBefore > 6 * 25_000, `six gpt-4o-mini images are over 150 000 tokens, not ${plan.tokensBefore}`);
  const applied = apply_summary(history, plan, "The user sent six screenshots of a failing build; each failed one step later.");
  assert.equal(applied.tokensBefore, plan.tokensBefore, "apply_summary counts the images as the plan did");
  assert.ok(applied.tokensAfter < 30_000);
});
