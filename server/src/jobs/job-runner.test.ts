import { describe, expect, it } from "vitest";
import { JobRunner } from "./job-runner.ts";

/** A promise with its resolve function, to hold a job or a poll open until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe("JobRunner", () => {
  it("runs one job per key and frees the key when the job settles", async () => {
    const runner = new JobRunner({ poll: async () => {}, onError: () => {} });
    const held = gate();
    expect(runner.run("a", () => held.promise)).toBe(true);
    expect(runner.run("a", async () => {})).toBe(false);
    expect(runner.isRunning("a")).toBe(true);
    expect(runner.size).toBe(1);
    held.open();
    await runner.stop();
    expect(runner.isRunning("a")).toBe(false);
  });

  it("stop aborts the jobs in flight and resolves only once they have settled", async () => {
    const runner = new JobRunner({ poll: async () => {}, onError: () => {} });
    let finished = false;
    let reason: unknown;
    runner.run(
      "a",
      (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => {
            reason = signal.reason;
            // The job still has cleanup to do after the abort; stop must wait for it.
            setImmediate(() => {
              finished = true;
              resolve();
            });
          }),
        ),
    );
    await runner.stop(new Error("bye"));
    expect(finished).toBe(true);
    expect(reason).toEqual(new Error("bye"));
    expect(runner.run("b", async () => {})).toBe(false);
  });

  it("stop waits for a poll under way, and the poll cannot start jobs after stop", async () => {
    const held = gate();
    const started: string[] = [];
    const runner = new JobRunner({
      poll: async () => {
        await held.promise;
        if (runner.run("late", async () => {})) started.push("late");
      },
      onError: () => {},
    });
    runner.wake();
    let stopped = false;
    const stopping = runner.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect(started).toEqual([]);
  });

  it("a wake during a poll polls once more after it", async () => {
    const first = gate();
    const second = gate();
    let polls = 0;
    const runner = new JobRunner({
      poll: async () => {
        polls++;
        if (polls === 1) await first.promise;
        else second.open();
      },
      onError: () => {},
    });
    runner.wake();
    runner.wake();
    runner.wake();
    first.open();
    await second.promise;
    await runner.stop();
    expect(polls).toBe(2);
  });

  it("reports a failing poll or job and keeps going", async () => {
    const errors: unknown[] = [];
    let polls = 0;
    const runner = new JobRunner({
      poll: async () => {
        polls++;
        throw new Error("poll broke");
      },
      onError: (error) => errors.push(error),
    });
    runner.wake();
    runner.run("a", async () => {
      throw new Error("job broke");
    });
    await runner.stop();
    expect(errors.map(String).sort()).toEqual(["Error: job broke", "Error: poll broke"]);
    expect(polls).toBe(1);
  });
});
