/**
 * The one risk-list setting (RISK_LISTS) behind address-risk and the
 * counter-MEV scores: its grammar, the two file formats it reads (a
 * structured list with per-entry factors, any text of addresses with one
 * factor), the built-in list, and lookups in every role.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addressesIn, BUILT_IN_LIST, loadRiskLists, parseRiskListsSetting } from "../../../src/chains/ethereum/risk-lists.js";
import { tempDir } from "../../helpers/app.js";

const A = "0x8589427373d6d84e98730d7795d8f6f8731fda16";
const B = "0x722122df12d4e14e13ac3b6895a86e84145b6967";
const S = "0x1111111111111111111111111111111111111111";
const T = "0x2222222222222222222222222222222222222222";
const EXPLOITED = BUILT_IN_LIST.entries[0]!.address;

describe("the RISK_LISTS grammar", () => {
  it("parses [name=]path[:factor] entries, trimmed, and refuses a malformed one naming the setting", () => {
    expect(parseRiskListsSetting("ofac=/data/ofac.csv:sanctioned, /data/risk.json ,scam=/data/a.json")).toEqual([
      { name: "ofac", path: "/data/ofac.csv", factor: "sanctioned" },
      { path: "/data/risk.json" },
      { name: "scam", path: "/data/a.json" },
    ]);
    expect(parseRiskListsSetting(undefined)).toEqual([]);
    expect(parseRiskListsSetting(" , ")).toEqual([]);
    expect(() => parseRiskListsSetting("bad name=/x.csv")).toThrow(/RISK_LISTS entry "bad name=\/x.csv" must be \[name=\]path/);
    expect(() => parseRiskListsSetting("a=b=/x.csv", "ADDRESS_RISK_LISTS")).toThrow(/^ADDRESS_RISK_LISTS entry/);
  });

  it("finds the addresses of a CSV, a JSON array and plain lines, not pieces of longer hex", () => {
    expect([...addressesIn(`address,name\n${A.toUpperCase().replace("0X", "0x")},Tornado\n`)]).toEqual([A]);
    expect([...addressesIn(JSON.stringify([A, B]))].sort()).toEqual([A, B].sort());
    expect(addressesIn(`0x${"ab".repeat(32)}`).size).toBe(0);
  });
});

describe("one loaded set for both features", () => {
  const dir = tempDir("vigil-risk-lists-");
  const ofac = path.join(dir, "ofac.csv");
  const scam = path.join(dir, "scam.json");
  const structured = path.join(dir, "revoke.json");
  fs.writeFileSync(ofac, `address,name\n${A.toUpperCase().replace("0X", "0x")},sample\n`);
  fs.writeFileSync(scam, JSON.stringify([B]));
  fs.writeFileSync(
    structured,
    JSON.stringify({ name: "team-list", entries: [{ address: S, kind: "spender", factors: ["deprecated", "closed_source"], label: "old router" }, { address: T, kind: "token", factors: ["phishing_risk"] }] }),
  );

  it("reads both formats from one setting, beside the built-in list, and answers every role", () => {
    const l = loadRiskLists(`ofac=${ofac}:sanctioned,${scam}:phishing,${structured}`, 1_000);
    expect(l.names).toEqual(["approval-exploits", "ofac", "scam", "team-list"]);
    // An address list names accounts in any role, with the file's one factor.
    expect(l.lookup(A.toUpperCase().replace("0X", "0x"))).toEqual([{ list: "ofac", factors: ["sanctioned"], kind: "any" }]);
    expect(l.spender(A)).toEqual({ factors: ["sanctioned"], labels: [], lists: ["ofac"] });
    expect(l.token(A)).toEqual({ factors: ["sanctioned"], labels: [], lists: ["ofac"] });
    expect(l.lookup(B)).toEqual([{ list: "scam", factors: ["phishing"], kind: "any" }]);
    // A structured list names each entry's role and factors.
    expect(l.spender(S)).toEqual({ factors: ["deprecated", "closed_source"], labels: ["old router"], lists: ["team-list"] });
    expect(l.token(S)).toBeUndefined();
    expect(l.token(T)?.factors).toEqual(["phishing_risk"]);
    expect(l.lookup(T)).toEqual([{ list: "team-list", factors: ["phishing_risk"], kind: "token" }]);
    // The built-in exploit list is always there, for address-risk as for counter-MEV.
    expect(l.lookup(EXPLOITED)).toEqual([expect.objectContaining({ list: "approval-exploits", factors: ["exploit"], kind: "spender" })]);
    expect(l.lookup("0x0000000000000000000000000000000000000001")).toEqual([]);
    const ofacList = l.lists.find((x) => x.name === "ofac")!;
    expect(ofacList).toMatchObject({ format: "addresses", factor: "sanctioned" });
    expect(ofacList.modifiedMs).toBe(Math.floor(fs.statSync(ofac).mtimeMs));
  });

  it("stops start-up on a missing file, a bad structured list, a factor on a structured list, or two lists of one name", () => {
    expect(() => loadRiskLists(`x=${path.join(dir, "missing.csv")}`, 0)).toThrow(/RISK_LISTS: cannot read/);
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, JSON.stringify({ name: "bad", entries: [{ address: "0x12", factors: ["exploit"] }] }));
    expect(() => loadRiskLists(bad, 0)).toThrow(/risk list .*bad\.json: entries\.0\.address/);
    expect(() => loadRiskLists(`${structured}:sanctioned`, 0)).toThrow(/structured list/);
    expect(() => loadRiskLists(`${ofac},other=${structured},ofac=${scam}`, 0)).toThrow(/two lists are named "ofac"/);
  });
});
