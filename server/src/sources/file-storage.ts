import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Connection, Table } from "@lancedb/lancedb";
import { Binary, Field, Schema, Utf8 } from "apache-arrow";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../store/permissions.ts";

/** Where uploaded files are kept until their source is deleted. */
export interface FileStorage {
  save(dataSourceId: string, bytes: Uint8Array): Promise<string>;
  read(dataSourceId: string, fileId: string): Promise<Uint8Array>;
  remove(dataSourceId: string, fileId: string): Promise<void>;
  removeAll(dataSourceId: string): Promise<void>;
}

/** Uploaded files under `<dataDir>/files/<dataSourceId>/<fileId>`; writes are temp-file + rename, so never half-written. */
export class DirectoryFileStorage implements FileStorage {
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

const fileSchema = new Schema([
  new Field("id", new Utf8(), false),
  new Field("data_source_id", new Utf8(), false),
  new Field("bytes", new Binary(), false),
]);

const UUID = /^[0-9a-f-]{36}$/i;

function assertUuid(id: string): string {
  if (!UUID.test(id)) throw new Error(`not a UUID: ${id}`);
  return id;
}

/**
 * Uploaded files as rows of a LanceDB table, so they live wherever LORE_STORAGE_URI puts the tables
 * (a shared path, an object store, LanceDB Cloud) and every replica reads the same ones. A row is one
 * commit: never half-written.
 */
export class TableFileStorage implements FileStorage {
  private constructor(private readonly table: Table) {}

  static async open(db: Connection): Promise<TableFileStorage> {
    const name = "uploaded_files";
    const table = (await db.tableNames()).includes(name)
      ? await db.openTable(name)
      : await db.createEmptyTable(name, fileSchema, { mode: "create", existOk: true });
    return new TableFileStorage(table);
  }

  async save(dataSourceId: string, bytes: Uint8Array): Promise<string> {
    const fileId = randomUUID();
    await this.table.add([
      { id: fileId, data_source_id: assertUuid(dataSourceId), bytes: Buffer.from(bytes) },
    ]);
    return fileId;
  }

  async read(dataSourceId: string, fileId: string): Promise<Uint8Array> {
    const rows = await this.table
      .query()
      .where(`id = '${assertUuid(fileId)}' AND data_source_id = '${assertUuid(dataSourceId)}'`)
      .select(["bytes"])
      .toArray();
    const bytes: unknown = rows[0]?.bytes;
    if (!(bytes instanceof Uint8Array))
      throw Object.assign(new Error(`no file ${fileId}`), { code: "ENOENT" });
    return bytes;
  }

  async remove(dataSourceId: string, fileId: string): Promise<void> {
    await this.table.delete(
      `id = '${assertUuid(fileId)}' AND data_source_id = '${assertUuid(dataSourceId)}'`,
    );
  }

  async removeAll(dataSourceId: string): Promise<void> {
    await this.table.delete(`data_source_id = '${assertUuid(dataSourceId)}'`);
  }
}
