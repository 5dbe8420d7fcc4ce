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
