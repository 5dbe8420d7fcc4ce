/** An answer read whole: its JSON when it parses, else its text (kept for the assertion message). */
export async function readAnswer(r: Response): Promise<{ status: number; json: any; headers: Headers }> {
  const text = await r.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: r.status, json, headers: r.headers };
}
