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

  /**
   * `[part,part,…]` as UTF-8 bytes. Bytes, because the glue copies a string into the wasm with a JavaScript
   * loop over its ASCII prefix (all of it, for most histories), and the encoder is native. Each part is
   * encoded into one buffer: joining the parts first and encoding the joined string took three times as long
   * (the corpus's 85 618 messages: 44 to 52 ms against 17, Node 20). The buffer holds the most a history can
   * take (three bytes a UTF-16 unit) up to a million units; a longer one starts at a byte a unit and an eighth
   * more, and grows when a part does not fit.
   */
  function jsonArray(parts) {
    let units = 2;
    for (const part of parts) units += part.length + 1;
    let bytes = new Uint8Array(units < 1 << 20 ? 3 * units : units + (units >> 3));
    let at = 0;
    const mark = (byte) => {
      if (at === bytes.length) bytes = grown(bytes, at, 1);
      bytes[at++] = byte;
    };
    mark(0x5b); // [
    for (let k = 0; k < parts.length; k++) {
      if (k > 0) mark(0x2c); // ,
      const part = parts[k];
      let { read, written } = utf8.encodeInto(part, bytes.subarray(at));
      at += written;
      while (read < part.length) {
        bytes = grown(bytes, at, 3 * (part.length - read));
        const rest = utf8.encodeInto(part.slice(read), bytes.subarray(at));
        read += rest.read;
        at += rest.written;
      }
    }
    mark(0x5d); // ]
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
    let lengths;
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
        // Each item's JSON length (for the input-size limit, which counts what the whole input's JSON
        // would be) comes with it here for free; measured in the wasm it cost twice the join.
        lengths = new Uint32Array(missing.length);
        const parts = missing.map((item, k) => {
          if (holdsBinary(item)) {
            // Read in the wasm instead (src/wasm/binary.rs): JSON.stringify would write each byte.
            walked.push(k);
            walkedItems.push(item);
            return "null";
          }
          const part = JSON.stringify(item) ?? "null"; // as in an array: undefined and functions are null
          lengths[k] = part.length;
          return part;
        });
        json = jsonArray(parts);
        body = input.body;
      }
    } catch {
      json = undefined;
    }
    const [result, current, first, perMessage] = glue.__estimate(messages, options, generation, found, json, lengths, body, new Uint32Array(walked), walkedItems);
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
    if (result !== null) {
      // A plain loop: Array.from on a typed array of 10 000 numbers costs more than the whole estimate.
      const numbers = new Array(perMessage.length);
      for (let i = 0; i < numbers.length; i++) numbers[i] = perMessage[i];
      result.perMessage = numbers;
    }
    return result;
  }

  return { estimate };
}
