/**
 * Runs a CLI entry function (`runMoneroCli`, `runZcashCli`, `runDevnetCli`, …)
 * in-process on memory streams: `input` on stdin, and what it wrote to
 * stdout and stderr with its exit code.
 */
import { PassThrough } from "node:stream";

export interface CliStreams {
  stdin: PassThrough;
  stdout: PassThrough;
  stderr: PassThrough;
}

export async function runOnStreams(run: (io: CliStreams) => Promise<number>, input = ""): Promise<{ code: number; out: string; err: string }> {
  const io: CliStreams = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
  let out = "";
  let err = "";
  io.stdout.on("data", (c: Buffer) => (out += c.toString()));
  io.stderr.on("data", (c: Buffer) => (err += c.toString()));
  io.stdin.end(input);
  const code = await run(io);
  return { code, out, err };
}
