import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Everything under the data directory is the server user's alone: hashes, conversations, uploads. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes files this process creates from now on private (LanceDB's native writes included), by
 * umask. A worker thread cannot change the umask; there the explicit modes of Lore's own writes
 * and the start-up tightening still apply.
 */
export function restrictUmask(): void {
  try {
    process.umask(0o077);
  } catch {
    // ERR_WORKER_UNSUPPORTED_OPERATION
  }
}

/**
 * Creates the data directory 0700 if missing, and tightens whatever exists under it that group or
 * others could read (directories to 0700, files to 0600). Returns those paths, relative to `dir`,
 * so the caller can warn: looser modes mean an earlier version or another tool wrote them.
 */
export function secureDataDir(dir: string): string[] {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const loosened: string[] = [];
  const visit = (path: string): void => {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return;
    const mode = stat.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    if ((stat.mode & 0o077) !== 0) {
      loosened.push(relative(dir, path) || ".");
      chmodSync(path, mode);
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return loosened;
}
