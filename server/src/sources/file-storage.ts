import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../store/permissions.ts";

/** Uploaded files under `<dataDir>/files/<dataSourceId>/<fileId>`; writes are temp-file + rename, so never half-written. */
export class FileStorage {
  constructor(private readonly root: string) {}

  private dir(dataSourceId: string): string {
    return join(this.root, dataSourceId);
  }

  async save(dataSourceId: string, bytes: Uint8Array): Promise<string> {
    const dir = this.dir(dataSourceId);
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const fileId = randomUUID();
    const tmp = join(dir, `.${fileId}.tmp`);
    await writeFile(tmp, bytes, { mode: PRIVATE_FILE_MODE });
    await rename(tmp, join(dir, fileId));
    return fileId;
  }

  read(dataSourceId: string, fileId: string): Promise<Uint8Array> {
    return readFile(join(this.dir(dataSourceId), fileId));
  }

  async remove(dataSourceId: string, fileId: string): Promise<void> {
    await rm(join(this.dir(dataSourceId), fileId), { force: true });
  }

  async removeAll(dataSourceId: string): Promise<void> {
    await rm(this.dir(dataSourceId), { recursive: true, force: true });
  }
}
