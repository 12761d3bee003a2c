import { parseArgs } from "node:util";
import { UsersService } from "./auth/users-service.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { AppError } from "./errors.ts";
import { connectRedis } from "./http/redis.ts";
import { createLogger } from "./log/logger.ts";
import { RedisChangeFeed } from "./store/change-feed.ts";
import { restrictUmask } from "./store/permissions.ts";
import { Store } from "./store/store.ts";

const usage = `Usage:
  lore serve                                   start the server (settings from LORE_* variables)
  lore users create --email E --password P [--first-name F] [--last-name L]
  lore users set-password --email E --password P
  lore backup --to DIR                         consistent snapshot of the data directory (server running or not)
  lore restore --from DIR                      replace the data directory with a backup (server stopped)
  lore doctor                                  the state of the disk, every table, the index snapshot and the journal

The users commands open the data directory directly: stop the server first. In shared mode
(LORE_REDIS_URL, LORE_STORAGE_URI) give them a data directory of their own instead: the running
replicas apply their writes at once.`;

/**
 * Opens the store the server would. In shared mode (LORE_REDIS_URL) the command joins the fleet's
 * change feed: its check-and-write runs under the fleet's lock for the table (an email stays unique
 * while replicas serve), and the running replicas apply the written user at once.
 */
async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig(process.env);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : null;
  const feed = redis ? await RedisChangeFeed.open(redis, createLogger("warn")) : undefined;
  try {
    const store = await Store.open(config.dataDir, config.lanceCache, {
      storageUri: config.storage.uri,
      feed,
    });
    feed?.start();
    try {
      return await fn(store);
    } finally {
      await store.close();
    }
  } finally {
    await feed?.close();
    await redis?.quit();
  }
}

async function run(argv: string[]): Promise<number> {
  restrictUmask(); // users, backup and restore write into the data directory (or a backup) too
  const [command, sub, ...rest] = argv;
  const opts = parseArgs({
    args: command === "users" ? rest : [sub ?? "", ...rest].filter(Boolean),
    options: {
      email: { type: "string" },
      password: { type: "string" },
      "first-name": { type: "string" },
      "last-name": { type: "string" },
      to: { type: "string" },
      from: { type: "string" },
    },
    allowPositionals: true,
  }).values;

  switch (command) {
    case "serve":
    case undefined:
      // Loaded lazily: the users and backup commands don't need the whole server.
      await (await import("./main.ts")).main(process.env);
      return -1; // keep running
    case "users": {
      if (!opts.email || !opts.password) break;
      const { email, password } = opts;
      if (sub === "create") {
        const user = await withStore((store) =>
          new UsersService(store).createUser({
            email,
            password,
            firstName: opts["first-name"],
            lastName: opts["last-name"],
          }),
        );
        console.log(`created user ${user.email} (${user.id})`);
        return 0;
      }
      if (sub === "set-password") {
        await withStore((store) => new UsersService(store).setPassword(email, password));
        console.log(`password changed for ${email}; earlier tokens are no longer valid`);
        return 0;
      }
      break;
    }
    case "doctor": {
      const { examineDataDir } = await import("./store/doctor.ts");
      const config = loadConfig(process.env);
      const checks = await examineDataDir(config.dataDir, config.storage.uri);
      for (const check of checks)
        console.log(`${check.ok ? "ok     " : "DAMAGED"} ${check.what}: ${check.detail}`);
      const damaged = checks.filter((c) => !c.ok).length;
      console.log(damaged === 0 ? "everything reads" : `${damaged} part(s) damaged`);
      return damaged === 0 ? 0 : 1;
    }
    case "backup":
    case "restore": {
      const { backupDataDir, restoreDataDir } = await import("./store/backup.ts");
      const config = loadConfig(process.env);
      if (config.storage.custom) {
        // The tables are not in the data directory: back up the storage itself (docs/operations.md).
        console.error(
          `lore ${command}: LORE_STORAGE_URI puts the tables at ${config.storage.uri}, outside the data directory; back up that storage instead (see docs/operations.md, "Shared mode")`,
        );
        return 1;
      }
      if (command === "backup" && opts.to) {
        const manifest = await backupDataDir(config.dataDir, opts.to);
        const tables = Object.keys(manifest.tables).length;
        console.log(
          `backed up ${tables} tables (${manifest.files} files, writes paused ${manifest.pausedMs} ms) to ${opts.to}`,
        );
        return 0;
      }
      if (command === "restore" && opts.from) {
        await restoreDataDir(opts.from, config.dataDir);
        console.log(`restored ${config.dataDir} from ${opts.from}`);
        return 0;
      }
      break;
    }
  }
  console.error(usage);
  return 2;
}

run(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(error.message);
    else if (error instanceof AppError)
      console.error(`${error.code}: ${error.message} ${JSON.stringify(error.details)}`);
    else console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
