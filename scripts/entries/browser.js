// Entry for browsers and bundlers (the "browser" and "default" export conditions, and "ctxfold/init").
// A browser cannot compile the .wasm synchronously at import, so it is loaded by `await init()`, which
// streams ctxfold_bg.wasm from next to web/ctxfold.js (wasm-bindgen's `new URL(..., import.meta.url)`,
// which Vite and webpack 5 recognise and emit as an asset). Two things are added to the generated glue:
// - init() is idempotent and shared: concurrent callers wait on one download; a failed download can
//   be retried (the glue would keep returning the failed promise).
// - calling a function before init() throws a CtxfoldError with code NOT_INITIALIZED, where the glue
//   would throw "TypeError: Cannot read properties of undefined".
// scripts/build.mjs generates the wrappers below `@exports` from the glue's own export list (minus its
// internal `__` steps) and the layers' (./async.js, ./estimate.js), so a new export is guarded without anyone editing this file.
import initWasm, { initSync as initSyncWasm } from "./web/ctxfold.js";
import * as wasm from "./web/ctxfold.js";

let ready = false;
let loading = null;

/**
 * Loads the WebAssembly module. `input` is optional: a URL, a `Response` (or a promise of one), a
 * `WebAssembly.Module` or the module's bytes; by default the .wasm beside this module.
 */
export default function init(input) {
  if (ready) return Promise.resolve(wasm);
  if (!loading) {
    // The glue takes `{ module_or_path }` and warns about a bare argument; accept both.
    const arg = input === undefined || isPlainObject(input) ? input : { module_or_path: input };
    loading = initWasm(arg).then(
      () => {
        ready = true;
        return wasm;
      },
      (error) => {
        loading = null;
        throw error;
      },
    );
  }
  return loading;
}

/** Initialises synchronously from a `WebAssembly.Module` or the module's bytes: `initSync({ module })`. */
export function initSync(input) {
  if (ready) return wasm;
  initSyncWasm(isPlainObject(input) ? input : { module: input });
  ready = true;
  return wasm;
}

function isPlainObject(v) {
  return v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;
}

function notInitialized(name) {
  const error = new Error(
    `ctxfold: NOT_INITIALIZED at ${name}: call \`await init()\` (the default export) before ${name}(); ` +
      "in browsers the WebAssembly module is loaded asynchronously",
  );
  error.name = "CtxfoldError";
  error.code = "NOT_INITIALIZED";
  error.path = name;
  return error;
}

/** `fn`, refusing with NOT_INITIALIZED until init() is done; keeps the export's name for stack traces. */
function guarded(name, fn) {
  return {
    [name](...args) {
      if (!ready) throw notInitialized(name);
      return fn(...args);
    },
  }[name];
}

// @exports
