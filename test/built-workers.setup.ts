/**
 * Every end-to-end file: the servers it starts in this process run their worker threads (parsing,
 * search scans, dictionaries) from the build test/global-setup.ts made of this tree, as `lore serve`
 * runs them, instead of transpiling each worker's modules through tsx at every start (about 0.8 s
 * more CPU per worker). The unit tests still start the source tree's workers.
 */
import { useBuiltWorkers } from "@lore/server/worker-source.ts";
import { inject } from "vitest";

useBuiltWorkers(inject("serverBuild"));
