export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Structured JSON lines on stdout (stderr for warnings and errors). Stdout lines are batched per
 * event-loop turn: one write for every request of the turn instead of a syscall each (stdout to a
 * pipe or file is synchronous). A warning or error flushes them first, so lines keep their order.
 */
export function createLogger(level: LogLevel, base: Record<string, unknown> = {}): Logger {
  const write = (lvl: Exclude<LogLevel, "silent">, msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    const line = `${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields })}\n`;
    if (order[lvl] < order.warn) {
      bufferStdout(line);
      return;
    }
    flushLogs();
    process.stderr.write(line);
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

const FLUSH_AT_BYTES = 64 * 1024;
let pending = "";
let scheduled = false;
let flushOnExit = false;

function bufferStdout(line: string): void {
  pending += line;
  if (!flushOnExit) {
    flushOnExit = true;
    // Exit handlers run on process.exit() and after an uncaught exception; the write is synchronous there.
    process.on("exit", flushLogs);
  }
  if (pending.length >= FLUSH_AT_BYTES) flushLogs();
  else if (!scheduled) {
    scheduled = true;
    setImmediate(flushLogs);
  }
}

/** Writes the batched stdout lines now (before other output to stdout that must come after them). */
export function flushLogs(): void {
  scheduled = false;
  if (pending === "") return;
  const chunk = pending;
  pending = "";
  process.stdout.write(chunk);
}
