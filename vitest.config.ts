import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One worker process runs the files one after another and keeps its module
    // cache: re-importing the app's module graph for each of ~150 files cost
    // about as much CPU as the tests themselves. Each file still opens its own
    // database, devnet and app, so no state is shared through modules.
    isolate: false,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/preload.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
