export interface UntilOptions {
  /** Give up after this long (ms). */
  timeout?: number;
  /** Look again after this long (ms). */
  interval?: number;
  /** Said in the error when time runs out, after "timed out waiting for" (a function: asked then, to tell the last state). */
  what?: string | (() => string);
}

type Truthy<T> = Exclude<T, false | 0 | "" | null | undefined>;

/**
 * Resolves with the first truthy value `check` returns (awaited), trying again every `interval` ms;
 * throws once `timeout` ms have passed. Tests wait on what they can observe, never a fixed time.
 */
export async function until<T>(
  check: () => T | Promise<T>,
  { timeout = 15_000, interval = 20, what = "the condition" }: UntilOptions = {},
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${timeout} ms waiting for ${typeof what === "function" ? what() : what}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
