/**
 * Prints, after vitest's own report, the slowest test files (where a CI run's
 * time goes) and one plain closing line ("N passed, N failed, N skipped").
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (m.state() === "failed" && [...m.children.allTests()].length === 0) failed++;
    }
    const slowest = modules
      .map((m) => ({ file: m.moduleId.replace(`${process.cwd()}/`, ""), ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 12);
    if (modules.length > 12) {
      process.stdout.write(`\nslowest files:\n${slowest.map((f) => `  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${f.file}`).join("\n")}\n`);
    }
    if (process.env.VIGIL_PASS === "pglite" || process.env.VIGIL_PASS === "postgres") {
      const other = process.env.VIGIL_PASS === "pglite" ? "PostgreSQL" : "PGlite";
      process.stdout.write(`\nleft out on purpose: the tests that choose the ${other} store themselves (VIGIL_PASS=${process.env.VIGIL_PASS}; the ${other} pass runs them; vitest.config.ts OWN_STORE_TESTS)\n`);
    }
    if (process.env.VIGIL_PASS === "postgres") {
      process.stdout.write("\nleft out on purpose: the pay page's browser tests (vitest.config.ts BROWSER_TESTS; the PGlite pass runs them)\n");
    }
    if (process.env.VIGIL_STORELESS_TESTS === "skip") {
      process.stdout.write("\nleft out on purpose: the tests that open no store (VIGIL_STORELESS_TESTS=skip, vitest.config.ts; the PGlite pass runs them)\n");
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
