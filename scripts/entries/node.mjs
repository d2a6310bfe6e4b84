// Entry for Node's `import` (the "node" + "import" export conditions). The web glue's async init() would
// fetch() a file: URL, which Node's fetch cannot do, so read the .wasm from disk and instantiate synchronously
// at import: `import { estimate } from "ctxfold"` then works with no `await init()`. `require` gets the
// CommonJS glue in ./node/ instead; a process that loads both gets two instances, which costs memory only.
import { readFileSync } from "node:fs";
import * as glue from "./web/ctxfold.js";

glue.initSync({ module: readFileSync(new URL("./web/ctxfold_bg.wasm", import.meta.url)) });

// scripts/build.mjs lists the glue's exports below rather than `export *`, which would also export the
// glue's internal `__` steps for ./async.js and ./estimate.js.
// @exports
// Kept so portable code that calls `await init()` works here too: init() is a no-op once initialised.
export { default } from "./web/ctxfold.js";
