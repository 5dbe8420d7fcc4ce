/** A small strict RFC 4180 reader for the CSV feeds' tests. */
/** RFC 4180, strictly: CRLF records, quoted fields with doubled quotes, every record as wide as the header. */
export function readCsv(text: string): string[][] {
  const records: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const record: string[] = [];
    for (;;) {
      let field = "";
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length) throw new Error("unterminated quoted field");
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
            } else {
              i++;
              break;
            }
          } else field += text[i++];
        }
      } else {
        while (i < text.length && text[i] !== "," && text[i] !== "\r") {
          if (text[i] === '"' || text[i] === "\n") throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
          field += text[i++];
        }
      }
      record.push(field);
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text.slice(i, i + 2) !== "\r\n") throw new Error(`expected CRLF at ${i}`);
      i += 2;
      break;
    }
    if (records.length > 0 && record.length !== records[0]!.length) throw new Error(`record ${records.length} has ${record.length} fields`);
    records.push(record);
  }
  return records;
}
