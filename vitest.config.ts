import { defineConfig } from "vitest/config";

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["shared/src/**/*.test.ts", "server/src/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        extends: true,
        test: { name: "widget", include: ["widget/src/**/*.test.{ts,tsx}"], environment: "happy-dom" },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          globalSetup: ["test/global-setup.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
