import { type MessagePort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { scanSlots } from "./block-scan.ts";
import { QueryLists } from "./query-lists.ts";
import {
  ASKED,
  type ClearJob,
  clearRanges,
  DONE,
  READY,
  type ScanJob,
  type ScanReply,
} from "./scan-protocol.ts";

/**
 * The search's second thread (see scan-helper.ts): waits on the control words for a job, scores the
 * chunks of slots it takes into the shared scores with the same code as the event loop
 * (`scanSlots`), and answers with what its heap and rivals hold.
 */
function run(job: ScanJob): ScanReply {
  const lists = QueryLists.fromParts(job.parts);
  lists.startAt(job.from);
  const scan = scanSlots(lists, { ...job.scratch, marks: new Int32Array(0) }, job.groupOf, job);
  return {
    heap: scan.heap.entries(),
    rivals: scan.rivals.slice(0, scan.rivalCount),
    best: scan.best,
    blocks: scan.blocks,
  };
}

const { control, port } = workerData as { control: Int32Array; port: MessagePort };
Atomics.store(control, READY, 1);
let seen = 0;
for (;;) {
  const asked = Atomics.load(control, ASKED);
  if (asked < 0) break;
  if (asked === seen) {
    Atomics.wait(control, ASKED, seen);
    continue;
  }
  seen = asked;
  const job = receiveMessageOnPort(port)?.message as ScanJob | ClearJob | undefined;
  if (job?.kind === "clear") clearRanges(job);
  else {
    let reply: ScanReply;
    try {
      reply = job ? run(job) : { error: "no job was sent" };
    } catch (error) {
      reply = { error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  }
  Atomics.store(control, DONE, seen);
  Atomics.notify(control, DONE);
}
port.close();
