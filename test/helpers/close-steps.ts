/**
 * Runs a test fixture's close steps in order and says on stderr which step is
 * still pending after `warnAfterMs`, so a close that hangs under load (a
 * hook timeout in CI) names its culprit instead of only the hook.
 */
export async function closeSteps(steps: [name: string, step: () => unknown][], warnAfterMs = 20_000): Promise<void> {
  for (const [name, step] of steps) {
    const started = Date.now();
    const warn = setInterval(() => process.stderr.write(`[close] ${name} still pending after ${Math.round((Date.now() - started) / 1000)} s\n`), warnAfterMs);
    try {
      await step();
    } finally {
      clearInterval(warn);
    }
  }
}
