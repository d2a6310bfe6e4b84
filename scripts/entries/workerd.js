// Entry for Cloudflare Workers and workerd (the "workerd" export condition, used by wrangler and other
// Workers-aware bundlers). Workers refuse to compile WebAssembly from bytes at run time and have no file URL to
// fetch, so the .wasm is imported as a module (the platform compiles it at upload) and instantiated
// synchronously right here, at import: `import { estimate } from "ctxfold"` then works with no `await init()`.
// Nothing at global scope fetches or uses randomness, both of which Workers forbid outside a request.
import wasmModule from "./web/ctxfold_bg.wasm";
import * as glue from "./web/ctxfold.js";

glue.initSync({ module: wasmModule });

// scripts/build.mjs lists the glue's exports below rather than `export *`, which would also export the
// glue's internal `__` steps for ./async.js and ./estimate.js.
// @exports
// Kept so portable code that calls `await init()` works here too: init() is a no-op once initialised.
export { default } from "./web/ctxfold.js";
