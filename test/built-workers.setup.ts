/**
 * Every end-to-end file: the servers it starts in this process keep WordNet's definition index in the
 * run's build directory (as `lore serve` keeps it in its data directory), and run their worker threads (parsing,
 * search scans, dictionaries) from the build test/global-setup.ts made of this tree, as `lore serve`
 * runs them, instead of transpiling each worker's modules through tsx at every start (about 0.8 s
 * more CPU per worker). The unit tests still start the source tree's workers.
 */
import { join } from "node:path";
import { keepDefinitionsIn } from "@lore/server/retrieval/wordnet.ts";
import { useBuiltWorkers } from "@lore/server/worker-source.ts";
import { inject } from "vitest";

useBuiltWorkers(inject("serverBuild"));
// WordNet's definition index, built once for the run and read back by every later file's servers.
keepDefinitionsIn(join(inject("serverBuild"), "wordnet-cache"));
