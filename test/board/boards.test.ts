/** The set of boards comes from config BOARDS; bad sets stop start-up with the variable named. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { boardCatalogue } from "../../src/board/boards.js";

const base = { DEVNET: "off" };

describe("BOARDS", () => {
  it("defaults to the five boards, seneschal-features first", () => {
    expect(loadConfig(base).BOARDS).toEqual(["seneschal-features", "data-requests", "agent-services", "bounties", "announcements"]);
  });

  it("takes another set, and titles unknown ids from the id", () => {
    const ids = loadConfig({ ...base, BOARDS: " general , hiring-now,seneschal-features" }).BOARDS;
    expect(ids).toEqual(["general", "hiring-now", "seneschal-features"]);
    expect(boardCatalogue(ids)).toEqual([
      { id: "general", title: "General", description: "Notices about general." },
      { id: "hiring-now", title: "Hiring Now", description: "Notices about hiring now." },
      { id: "seneschal-features", title: "Feature requests", description: expect.any(String) },
    ]);
  });

  it.each([["Upper"], ["leaderboard"], ["a"], ["dup,dup"], ["ok,-bad"], [","], [`x${"y".repeat(39)}`]])("refuses %j", (v) => {
    expect(() => loadConfig({ ...base, BOARDS: v })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, BOARDS: v })).toThrow(/BOARDS/);
  });
});
