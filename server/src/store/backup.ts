import { existsSync } from "node:fs";
import { cp, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface BackupManifest {
  createdAt: string;
  tables: string[];
}

/**
 * Copies the data directory. LanceDB never rewrites committed files (new versions add files and a
 * manifest), so copying while the server writes yields each table at some committed version.
 */
export async function backupDataDir(dataDir: string, target: string): Promise<BackupManifest> {
  if (existsSync(target) && (await readdir(target)).length > 0) throw new Error(`${target} is not empty`);
  await mkdir(target, { recursive: true });
  await cp(dataDir, target, { recursive: true, filter: (src) => !src.endsWith("lore.lock") });
  const lance = join(target, "lance");
  const tables = existsSync(lance) ? (await readdir(lance)).filter((n) => n.endsWith(".lance")) : [];
  const manifest = { createdAt: new Date().toISOString(), tables };
  await writeFile(join(target, "backup.json"), JSON.stringify(manifest, null, 2));
  return manifest;
}

export async function restoreDataDir(source: string, dataDir: string): Promise<void> {
  if (!existsSync(join(source, "backup.json")))
    throw new Error(`${source} is not a Lore backup (no backup.json)`);
  if (existsSync(join(dataDir, "lore.lock"))) throw new Error("Stop the server before restoring");
  await rm(dataDir, { recursive: true, force: true });
  await cp(source, dataDir, { recursive: true });
}
