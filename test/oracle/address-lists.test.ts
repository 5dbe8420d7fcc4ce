/**
 * The address lists behind /v1/q/address-risk: every 0x-address of a file
 * in any text format is an entry; the setting's grammar; lookups.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addressesIn, loadAddressLists, parseListSpec } from "../../src/oracle/address-lists.js";
import { tempDir } from "../helpers/app.js";

const A = "0x8589427373d6d84e98730d7795d8f6f8731fda16";
const B = "0x722122df12d4e14e13ac3b6895a86e84145b6967";

describe("address lists", () => {
  it("finds the addresses of a CSV, a JSON array and plain lines, not pieces of longer hex", () => {
    expect([...addressesIn(`address,name\n${A.toUpperCase().replace("0X", "0x")},Tornado\n`)]).toEqual([A]);
    expect([...addressesIn(JSON.stringify([A, B]))].sort()).toEqual([A, B].sort());
    expect(addressesIn(`0x${"ab".repeat(32)}`).size).toBe(0);
    expect(addressesIn("no addresses here").size).toBe(0);
  });

  it("parses name=path[:factor] and refuses anything else", () => {
    expect(parseListSpec("ofac=/data/ofac.csv:sanctioned, scam=/data/a.json")).toEqual([
      { name: "ofac", path: "/data/ofac.csv", factor: "sanctioned" },
      { name: "scam", path: "/data/a.json", factor: "blocklist" },
    ]);
    expect(parseListSpec(undefined)).toEqual([]);
    expect(() => parseListSpec("/data/no-name.csv")).toThrow(/name=path/);
  });

  it("loads files and looks addresses up case-insensitively; a missing file fails at start", () => {
    const dir = tempDir("vigil-lists-");
    fs.writeFileSync(path.join(dir, "ofac.csv"), `${A}\n`);
    fs.writeFileSync(path.join(dir, "scam.json"), JSON.stringify([B]));
    const lists = loadAddressLists(`ofac=${path.join(dir, "ofac.csv")}:sanctioned,scam=${path.join(dir, "scam.json")}:phishing`);
    expect(lists.lookup(A.toUpperCase().replace("0X", "0x"))).toEqual([{ list: "ofac", factor: "sanctioned" }]);
    expect(lists.lookup(B)).toEqual([{ list: "scam", factor: "phishing" }]);
    expect(lists.lookup("0x0000000000000000000000000000000000000001")).toEqual([]);
    expect(() => loadAddressLists(`x=${path.join(dir, "missing.csv")}`)).toThrow();
  });
});
