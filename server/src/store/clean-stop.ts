import { closeSync, existsSync, fsyncSync, openSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE_MODE } from "./permissions.ts";

/**
 * `<dataDir>/clean-stop`: a shared-mode replica writes it as the last step of a stop that left no
 * commit unannounced, and takes it (removes it) when it starts. Absent at start: the last run was
 * killed, crashed, stopped with notices unsent, or this is the first start; the other replicas may
 * have missed a commit of it and must reload.
 */
const FILE = "clean-stop";

/** Whether the last run of this data directory stopped cleanly; from now on it counts as not. */
export function takeCleanStop(dataDir: string): boolean {
  const path = join(dataDir, FILE);
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  // Durable before this run commits anything: a crash after that must not find the file again.
  syncDirectory(dataDir);
  return true;
}

/** Records that this run stopped with every commit announced. */
export function markCleanStop(dataDir: string): void {
  writeFileSync(join(dataDir, FILE), `${new Date().toISOString()}\n`, { mode: PRIVATE_FILE_MODE });
  syncDirectory(dataDir);
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
