/**
 * Prints, after vitest's own report, the slowest test files (where a CI run's
 * time goes), every failure in a few lines (the failed tests with their first
 * error line, the files that failed without a test, the errors outside any
 * test), and one plain closing line ("N passed, N failed, N skipped").
 *
 * With VIGIL_FAILURES_FILE set, the failure block and the closing line are
 * also written to that file, so `.ci/run` can repeat them at the very end of
 * its output, where a CI log that is cut to its tail still shows them.
 */
import { writeFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

type SerializedError = { message?: string; name?: string; stack?: string };

/** The first non-empty line of an error, without colour codes, at most 300 characters. */
export function firstLine(error: SerializedError | undefined): string {
  const text = `${error?.name && error.name !== "Error" ? `${error.name}: ` : ""}${error?.message ?? String(error)}`.replace(/\u001b\[[0-9;]*m/g, "");
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "(no message)";
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = [], reason?: string): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    const relative = (id: string) => id.replace(`${process.cwd()}/`, "");
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const result = t.result();
        if (result.state === "passed") passed++;
        else if (result.state === "failed") {
          failed++;
          failures.push(`  ${relative(m.moduleId)} > ${t.fullName}\n      ${firstLine(result.errors?.[0])}`);
        } else skipped++;
      }
      if (m.state() === "failed" && [...m.children.allTests()].every((t) => t.result().state !== "failed")) {
        if ([...m.children.allTests()].length === 0) failed++;
        failures.push(`  ${relative(m.moduleId)} (the file itself)\n      ${firstLine(m.errors()[0])}`);
      }
    }
    for (const e of unhandledErrors) failures.push(`  unhandled error outside a test\n      ${firstLine(e)}`);
    const slowest = modules
      .map((m) => ({ file: relative(m.moduleId), ms: m.diagnostic().duration }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 12);
    if (modules.length > 12) {
      process.stdout.write(`\nslowest files:\n${slowest.map((f) => `  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${f.file}`).join("\n")}\n`);
    }
    if (process.env.VIGIL_PASS === "pglite" || process.env.VIGIL_PASS === "postgres") {
      const other = process.env.VIGIL_PASS === "pglite" ? "PostgreSQL" : "PGlite";
      process.stdout.write(`\nleft out on purpose: the tests that choose the ${other} store themselves (VIGIL_PASS=${process.env.VIGIL_PASS}; the ${other} pass runs them; vitest.config.ts OWN_STORE_TESTS)\n`);
    }
    if (process.env.VIGIL_PASS === "pglite") {
      process.stdout.write("\nleft out on purpose: the end-to-end tests of a chain format (vitest.config.ts CHAIN_FORMAT_E2E_TESTS; the PostgreSQL pass runs them)\n");
    }
    if (process.env.VIGIL_PASS === "postgres") {
      process.stdout.write("\nleft out on purpose: the pay page's browser tests (vitest.config.ts BROWSER_TESTS; the PGlite pass runs them)\n");
    }
    if (process.env.VIGIL_STORELESS_TESTS === "skip") {
      process.stdout.write("\nleft out on purpose: the tests that open no store (VIGIL_STORELESS_TESTS=skip, vitest.config.ts; the PGlite pass runs them)\n");
    }
    const failureBlock = failures.length > 0 ? `\nfailures:\n${failures.join("\n")}\n` : "";
    const closing = `\n${passed} passed, ${failed} failed, ${skipped} skipped${reason === "interrupted" ? " (interrupted)" : ""}\n`;
    process.stdout.write(failureBlock + closing);
    if (process.env.VIGIL_FAILURES_FILE) writeFileSync(process.env.VIGIL_FAILURES_FILE, failureBlock + closing);
  }
}
