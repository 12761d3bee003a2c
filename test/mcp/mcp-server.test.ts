/**
 * The MCP server: its tools, what its use is charged to, and the console's MCP page data.
 *
 * One test file for several parts: each part's server, hooks and tests run in its own describe
 * block, one part after another, and the file imports the server once instead of once per part
 * (about 1.5 CPU-s each; bench/README.md, "Test suite time", session 29).
 */
import { describe } from "vitest";

describe("mcp", async () => {
  await import("./mcp.part.ts");
});
describe("mcp-charging", async () => {
  await import("./mcp-charging.part.ts");
});
describe("console-mcp", async () => {
  await import("./console-mcp.part.ts");
});
