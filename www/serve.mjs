// `npm run www`: builds the demo page (vite.config.mjs) and serves it on http://127.0.0.1:PORT/
// (PORT from --port, default 5173) until Ctrl-C. `--build-only` stops after the build.
import { createServer } from "node:http";
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const config = fileURLToPath(new URL("./vite.config.mjs", import.meta.url));
const out = fileURLToPath(new URL("../target/www", import.meta.url));
const args = process.argv.slice(2);
const port = Number(args[args.indexOf("--port") + 1] || 5173);

await build({ configFile: config });
console.log(`demo page built in ${out}`);
if (args.includes("--build-only")) process.exit(0);

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm" };
createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  const file = normalize(join(out, path.endsWith("/") ? `${path}index.html` : path));
  if (!file.startsWith(out + sep) || !existsSync(file) || !statSync(file).isFile()) return res.writeHead(404).end("not found");
  res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
}).listen(port, "127.0.0.1", () => console.log(`the demo page: http://127.0.0.1:${port}/  (Ctrl-C to stop)`));
