// Chromium for the browser tests: Debian's `chromium` (installed here when missing, as root) driven by
// playwright-core, and a static file server on 127.0.0.1 that logs what the page fetched.
// playwright's own browser download cannot work offline, hence executablePath.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Installs Debian's chromium if it is missing (needs root and the Debian mirrors). */
export function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  console.log("installing Debian's chromium for the browser tests (once)");
  execFileSync("apt-get", ["update"], { stdio: ["ignore", "ignore", "inherit"] });
  execFileSync("apt-get", ["install", "-y", "chromium"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is not there`);
}

/** A headless Chromium with no network chatter (playwright gives it a fresh temporary profile). */
export async function launchChromium() {
  ensureChromium();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 60_000,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json",
  ".wasm": "application/wasm", ".css": "text/css", ".svg": "image/svg+xml", ".png": "image/png", ".map": "application/json",
};

/** Serves `root` on 127.0.0.1 (a free port); `requests` lists the paths asked for, in order. */
export async function serveStatic(root) {
  const requests = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    requests.push(path);
    const file = normalize(join(root, path.endsWith("/") ? `${path}index.html` : path));
    if (!file.startsWith(normalize(root + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
    res.end(readFileSync(file));
  });
  await new Promise((ready, fail) => server.once("error", fail).listen(0, "127.0.0.1", ready));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    requests,
    async stop() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

/**
 * Opens `url` and waits for the page to set `window.__report`; returns it with the page's errors.
 * The timeout only stops a hung page; it is not a performance limit.
 */
export async function pageReport(browser, url) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e?.stack ?? e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__report !== undefined, null, { timeout: 180_000 });
    return { report: await page.evaluate(() => window.__report), errors };
  } finally {
    await page.close();
  }
}
