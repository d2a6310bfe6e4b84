// `estimate`, shared by every entry (browser, Node ESM, Node CommonJS, workerd). Everything it decides is
// decided in Rust (src/counting/estimate_cache.rs, through the glue's `__estimate` step); this file
// keeps the half of the per-message cache that is best kept in JavaScript: which message object is which cache entry. A WeakMap
// (a message the host drops is forgotten with it) looked up in a plain loop here costs a fraction of the
// same look-ups made from the wasm through wasm-bindgen's imports. The entries themselves (what each
// message cost, without its text) are in the wasm (src/counting/estimate_cache.rs).
// scripts/build.mjs ships this file as dist/estimate.js and, for `require`, inlines it into the CommonJS
// entry (dropping the `export` keyword below), so it must keep to one exported function and no imports.

/** `estimate`, built on `glue` (the wasm-bindgen glue module, initialised or not). */
export function estimateExports(glue) {
  // The wasm cache's generation that `ids` belongs to; the wasm starts a new one when it clears.
  let generation = 0;
  let ids = new WeakMap();
  const utf8 = new TextEncoder();

  /** The array of messages in `messages` and, for a request body, its JSON with that array emptied. */
  function itemsOf(messages) {
    if (Array.isArray(messages)) return { items: messages, body: undefined };
    if (typeof messages !== "object" || messages === null) return undefined;
    // As the Rust side looks for them in the body's JSON, where an undefined field is absent.
    const key = ["messages", "contents", "input"].find((k) => messages[k] !== undefined);
    if (key === undefined || !Array.isArray(messages[key])) return undefined;
    return { items: messages[key], body: JSON.stringify({ ...messages, [key]: [] }) };
  }

  // Items stringified together. One `JSON.stringify` per item costs a call each: in Node, 1.3 to 2.3 times one
  // call for all of a chat's short messages. One call for all makes the whole text two bytes a character as
  // soon as one character in it is above U+00FF, which workerd's encoder is slow on: 1.7 to 2.5 times one call
  // per item for an agent run. Eight a call took 0.4 to 1.1 of one per item in workerd, 0.7 to 0.9 in Node
  // (pkg-tests/bench/README.md, "Message arrays into the wasm").
  const GROUP = 8;
  // The buffer `jsonArray` encodes into, kept for the next call: with a new (zeroed) one each call, every
  // corpus history's messages took 113 ms in Node, against 19 into a kept one. Kept up to `KEEP` bytes; a
  // longer history's is let go.
  const KEEP = 3 << 20;
  let scratch = new Uint8Array(0);

  /**
   * `items` as one JSON array, in UTF-8 bytes. Bytes, because the glue copies a string into the wasm with a
   * JavaScript loop over its ASCII prefix (all of it, for most histories), and the encoder is native. Each
   * group's JSON array is encoded in place, its `[` over the `]` before it, which then becomes a comma. The
   * buffer is `scratch` when it has room for the most the text can take (three bytes a UTF-16 unit); a longer
   * history starts at a byte a unit and an eighth more, and grows when a group does not fit. The glue copies
   * the bytes into the wasm before anything else runs, so the next call may write over them.
   */
  function jsonArray(items) {
    const groups = [];
    for (let g = 0; g < items.length; g += GROUP) groups.push(JSON.stringify(items.slice(g, g + GROUP)));
    if (groups.length === 0) groups.push("[]");
    let units = 0;
    for (const text of groups) units += text.length;
    const most = 3 * units;
    let bytes = scratch;
    if (most > bytes.length) {
      bytes = new Uint8Array(most <= KEEP ? Math.min(KEEP, Math.max(most, 2 * bytes.length)) : units + (units >> 3));
    }
    let at = 0;
    for (let k = 0; k < groups.length; k++) {
      const text = groups[k];
      const start = at;
      let { read, written } = utf8.encodeInto(text, bytes.subarray(at));
      at += written;
      while (read < text.length) {
        bytes = grown(bytes, at, 3 * (text.length - read));
        const rest = utf8.encodeInto(text.slice(read), bytes.subarray(at));
        read += rest.read;
        at += rest.written;
      }
      if (k > 0) bytes[start] = 0x2c; // , where this group's [ is
      if (k < groups.length - 1) at -= 1; // the next group's [ goes where this one's ] is
    }
    if (bytes.length <= KEEP) scratch = bytes;
    return bytes.subarray(0, at);
  }

  /** `bytes` with its first `used` bytes, in a buffer with room for `more` after them. */
  function grown(bytes, used, more) {
    const next = new Uint8Array(Math.max(2 * bytes.length, used + more + 4));
    next.set(bytes.subarray(0, used));
    return next;
  }

  /** Whether a content part of `item` holds binary data where the AI SDK puts it (`image`, `data`), as the
   * wasm checks it (`in_content_parts` in src/wasm/binary.rs). */
  function holdsBinary(item) {
    const content = item?.content;
    if (!Array.isArray(content)) return false;
    for (const part of content) {
      if (typeof part === "object" && part !== null && (ArrayBuffer.isView(part.image) || ArrayBuffer.isView(part.data))) return true;
    }
    return false;
  }

  /** Tokens of `messages`; see ctxfold.d.ts. */
  function estimate(messages, options) {
    // null: the cached entries could not serve this call (read in another format, or not counted by
    // this counter); the wasm has started over, so the second call has nothing cached.
    return step(messages, options) ?? step(messages, options);
  }

  function step(messages, options) {
    // Anything unusual (no array, an item that is not JSON, a throwing getter) is left to the Rust
    // side's reading of the whole input, whose errors are the canonical ones.
    let found = new Int32Array(0);
    let missing = [];
    let json;
    let body;
    const walked = [];
    const walkedItems = [];
    try {
      const input = itemsOf(messages);
      if (input) {
        const { items } = input;
        found = new Int32Array(items.length);
        for (let i = 0; i < items.length; i++) {
          const id = ids.get(items[i]);
          if (id === undefined) {
            found[i] = -1;
            missing.push(items[i]);
          } else {
            found[i] = id;
          }
        }
        // The items not cached as one JSON array, whose items' lengths the wasm measures.
        let list = missing;
        for (let k = 0; k < missing.length; k++) {
          if (holdsBinary(missing[k])) {
            // Read in the wasm instead (src/wasm/binary.rs): JSON.stringify would write each byte.
            if (list === missing) list = missing.slice();
            list[k] = null;
            walked.push(k);
            walkedItems.push(missing[k]);
          }
        }
        json = jsonArray(list);
        body = input.body;
      }
    } catch {
      json = undefined;
    }
    const [current, first, total, perMessage, format, tokenizer, requestOverhead, counted, rest] = glue.__estimate(
      messages, options, generation, found, json, body, new Uint32Array(walked), walkedItems);
    if (current !== generation) {
      generation = current;
      ids = new WeakMap();
    }
    if (first >= 0) {
      for (let k = 0; k < missing.length; k++) {
        const item = missing[k];
        if (typeof item === "object" && item !== null) ids.set(item, first + k);
      }
    }
    if (total === null) return null;
    // A plain loop: Array.from on a typed array of 10 000 numbers costs more than the whole estimate.
    const numbers = new Array(perMessage.length);
    for (let i = 0; i < numbers.length; i++) numbers[i] = perMessage[i];
    // The fields in the order of the Rust side's JSON (src/counting/estimate.rs), so the same input gives the same text.
    return { total, perMessage: numbers, format, tokenizer, requestOverhead, counted, ...rest };
  }

  return { estimate };
}
