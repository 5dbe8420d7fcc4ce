/**
 * The Private Watch routes read their guide off the route table: prices,
 * top-up paths and the event list are declared once. These checks run the
 * real app and compare what GET /v1/private/info serves with the RouteDefs,
 * and check that each free route's answer is exactly its output schema (a
 * field the schema does not know would be stripped by the parse).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatUsd } from "../../src/core/money.js";
import { priceLabel, type AnyRouteDef } from "../../src/http/route-table.js";
import { WATCH_EVENTS } from "../../src/watch/events.js";
import { TOPUP_PATHS } from "../../src/watch/topups.js";
import { startTestApp, type TestApp } from "../helpers/app.js";

describe("Private Watch routes and the route table", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ PAY_TO: "0x1111111111111111111111111111111111111111", FACILITATOR_MODE: "http", FACILITATOR_URL: "http://127.0.0.1:9" });
  });
  afterAll(async () => t?.close());

  const route = (operationId: string): AnyRouteDef => {
    const r = t.app.routes.find((x) => x.operationId === operationId);
    if (!r) throw new Error(`no route ${operationId}`);
    return r;
  };
  const get = async (path: string) => {
    const res = await fetch(`${t.url}${path}`);
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  const topupRoutes = () => t.app.routes.filter((r) => r.operationId.startsWith("privateTopup"));

  it("the info guide's prices are the priceLabel of each route", async () => {
    const info = (await get("/v1/private/info")) as { prices: Record<string, string> };
    const custom = route("privateTopupCustom");
    expect(info.prices).toEqual({
      create: `${priceLabel(route("privateWatchCreate"))} (becomes the opening credit)`,
      topup: priceLabel(route("privateTopup")),
      "topup-1": priceLabel(route("privateTopup1")),
      "topup-5": priceLabel(route("privateTopup5")),
      "topup-custom": `${formatUsd(custom.priceRange!.min)} to ${formatUsd(custom.priceRange!.max)} (amountAtomic)`,
      historical: priceLabel(route("privateHistorical")),
    });
    // The published figures, unchanged.
    expect(info.prices).toEqual({
      create: "$0.10 (becomes the opening credit)",
      topup: "$0.10",
      "topup-1": "$1.00",
      "topup-5": "$5.00",
      "topup-custom": "$0.10 to $25.00 (amountAtomic)",
      historical: "$0.50",
    });
  });

  it("the top-up list (info guide and a new watch's topupEndpoints) is the table's top-up routes", async () => {
    const info = (await get("/v1/private/info")) as { topups: { usdc: string[] } };
    const fromTable = topupRoutes().map((r) => `${r.method} ${r.path}`);
    expect(fromTable).toHaveLength(4);
    expect(info.topups.usdc).toEqual(fromTable);
    expect(TOPUP_PATHS.map((p) => `POST ${p}`)).toEqual(fromTable);
  });

  it("the info guide lists the webhook events of the union", async () => {
    const info = (await get("/v1/private/info")) as { webhooks: { events: string[] } };
    expect(info.webhooks.events).toEqual([...WATCH_EVENTS]);
  });

  it.each([
    ["privateWatchInfo", "/v1/private/info"],
    ["privateWatchHealth", "/v1/private/health"],
    ["privateWatchSnippets", "/v1/private/snippets"],
    ["privateWatchSnippets", "/v1/private/snippets?lang=python"],
  ])("%s (%s) answers exactly its output schema", async (operationId, path) => {
    const body = await get(path);
    expect(route(operationId).output.parse(body)).toEqual(body);
  });
});
