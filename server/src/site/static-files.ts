import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, normalize, sep } from "node:path";
import { compressBytes, type Encoding, isCompressible, MIN_COMPRESS_BYTES } from "../http/compression.ts";

/** One representation of a file: its bytes and a strong ETag that differs per encoding. */
export interface StaticVariant {
  body: Buffer;
  encoding: Encoding;
  etag: string;
}

interface CachedFile {
  mtimeMs: number;
  size: number;
  identity: Buffer;
  hash: string;
  variants: Map<Encoding, Promise<Buffer>>;
}

const siblingSuffix: Record<Exclude<Encoding, "identity">, string> = { br: ".br", gzip: ".gz" };

export interface StaticFiles {
  /**
   * The file under `root` in `encoding` (identity when the file is small or not text), or null when
   * it does not exist or resolves outside `root`.
   */
  read(
    root: string,
    relative: string,
    contentType: string,
    encoding: Encoding,
  ): Promise<StaticVariant | null>;
}

/**
 * Static files compressed once each: a `.br`/`.gz` sibling written by the build (widget/dist) is
 * used as is; otherwise (demo and console files, or a dist built without them) the file is compressed
 * on first request and kept in memory. Entries follow the file's mtime and size, so an edited
 * file is read and compressed again.
 */
export function createStaticFiles(): StaticFiles {
  const cache = new Map<string, CachedFile>();

  const load = (path: string): CachedFile | null => {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      return null;
    }
    if (!stat.isFile()) return null;
    const cached = cache.get(path);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached;
    const identity = readFileSync(path);
    const hash = createHash("sha256").update(identity).digest("base64url").slice(0, 22);
    const entry: CachedFile = { mtimeMs: stat.mtimeMs, size: stat.size, identity, hash, variants: new Map() };
    cache.set(path, entry);
    return entry;
  };

  const encoded = (path: string, file: CachedFile, encoding: Exclude<Encoding, "identity">) => {
    let variant = file.variants.get(encoding);
    if (!variant) {
      const sibling = `${path}${siblingSuffix[encoding]}`;
      // A sibling older than its source is left over from an earlier build.
      variant =
        existsSync(sibling) && statSync(sibling).mtimeMs >= file.mtimeMs
          ? Promise.resolve(readFileSync(sibling))
          : compressBytes(file.identity, encoding, "static");
      file.variants.set(encoding, variant);
    }
    return variant;
  };

  return {
    async read(root, relative, contentType, encoding) {
      const path = normalize(join(root, relative));
      if (!path.startsWith(root + sep)) return null;
      const file = load(path);
      if (!file) return null;
      if (encoding === "identity" || !isCompressible(contentType) || file.size < MIN_COMPRESS_BYTES) {
        return { body: file.identity, encoding: "identity", etag: `"${file.hash}"` };
      }
      return { body: await encoded(path, file, encoding), encoding, etag: `"${file.hash}-${encoding}"` };
    },
  };
}

/** True when `If-None-Match` lists `etag` (weak comparison, as RFC 9110 asks for GET). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || bare(tag) === bare(etag));
}
