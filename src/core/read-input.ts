/**
 * The command-line tools' input and error shape (`vigil monero scan-tx`,
 * `vigil zcash scan-tx`, `vigil zcash derive-ufvk`): their streams, stdin
 * read whole but capped, a JSON object on stdin, and one JSON error line on
 * stderr (`{"error": {"code", "message"}}`, as the API's errors).
 */

/** A CLI's standard streams (the process's, or memory streams in tests). */
export interface CliIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Reads a whole input stream (a CLI's stdin) as UTF-8, refusing more than `maxBytes` so a stray pipe cannot fill memory. */
export async function readInputCapped(stream: NodeJS.ReadableStream, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const b = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > maxBytes) throw new Error(`input larger than ${maxBytes} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Writes the error line to stderr and returns the exit code to end with. */
export function failCli(io: Pick<CliIo, "stderr">, code: string, message: string, exit: number): number {
  io.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  return exit;
}

/** stdin as one JSON object; otherwise the `invalid_input` error line is written and `exit` (2) is what the tool returns. */
export async function readJsonObjectInput(io: CliIo, maxBytes: number): Promise<{ input: Record<string, unknown> } | { exit: number }> {
  try {
    const parsed: unknown = JSON.parse(await readInputCapped(io.stdin, maxBytes));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("input must be a JSON object");
    return { input: parsed as Record<string, unknown> };
  } catch (e) {
    return { exit: failCli(io, "invalid_input", `could not read input JSON: ${e instanceof Error ? e.message : String(e)}`, 2) };
  }
}
