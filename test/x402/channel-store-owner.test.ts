/**
 * One writer of the x402 channels' money (DESIGN.md, "Ownership"):
 * `src/x402/channel-store.ts` is the only file under src/ that writes
 * `x402_channels`, `x402_channel_ops` and `x402_escrow_cursor`; the paywall's
 * channel flow and the keeper call its named operations (the official
 * ChannelStorage among them). Checked on the source text like `payments`
 * (payment-store-owner.test.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles, tableWrites } from "../helpers/table-writes.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const OWNER = path.join("src", "x402", "channel-store.ts");
const TABLES = ["x402_channels", "x402_channel_ops", "x402_escrow_cursor"];

describe("one writer of the x402 channels", () => {
  it("the scan finds each table's writes, and the owner makes them", () => {
    for (const t of TABLES) {
      expect(tableWrites(`db.updateTable("${t}").set({})`, TABLES)).toHaveLength(1);
      expect(tableWrites(`sql\`UPDATE ${t} SET x = 1\``, TABLES)).toHaveLength(1);
      expect(tableWrites(`db.selectFrom("${t}").selectAll()`, TABLES)).toEqual([]);
    }
    const own = tableWrites(fs.readFileSync(path.join(ROOT, OWNER), "utf8"), TABLES).join("\n");
    for (const t of TABLES) expect(own).toContain(t);
  });

  it("no file under src/ but src/x402/channel-store.ts writes them", () => {
    const offenders = sourceFiles(path.join(ROOT, "src"))
      .map((file) => path.relative(ROOT, file))
      .filter((rel) => rel !== OWNER)
      .flatMap((rel) => tableWrites(fs.readFileSync(path.join(ROOT, rel), "utf8"), TABLES).map((w) => `${rel}: ${w}`));
    expect(offenders, "call the operations of src/x402/channel-store.ts instead").toEqual([]);
  });
});
