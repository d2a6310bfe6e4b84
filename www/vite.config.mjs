// Builds the demo page (www/) into target/www/ with the package from this repository's dist/ (built by
// `npm run build`): "ctxfold" resolves to dist/browser.js, the same entry users' bundlers pick.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here("."),
  base: "./", // relative URLs: the folder can be served from anywhere (a sub-path, a file server)
  logLevel: "warn",
  resolve: { alias: { ctxfold: here("../dist/browser.js") } },
  build: { outDir: here("../target/www"), emptyOutDir: true },
});
