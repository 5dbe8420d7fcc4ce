/**
 * A notice's owner token never reaches the logs: the whole request path runs
 * at trace level into a captured stream while a notice is posted, edited with
 * its token (in the header, and once wrongly in the body), refused with a
 * wrong token, and removed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { captureLogs } from "../helpers/log-capture.js";

describe("notice owner tokens never appear in logs", () => {
  let t: TestApp;
  const logs = captureLogs();

  beforeAll(async () => {
    t = await startTestApp({}, { log: logs.log });
  });
  afterAll(async () => t?.close());

  it("keeps the owner token out of every log line", async () => {
    const json = { "content-type": "application/json" };
    const posted = await fetch(`${t.url}/v1/board/bounties`, { method: "POST", headers: json, body: JSON.stringify({ title: "Secret keeper", body: "x" }) });
    expect(posted.status).toBe(201);
    const { id, ownerToken } = (await posted.json()) as { id: string; ownerToken: string };
    const path = `${t.url}/v1/board/bounties/${id}`;
    const inBody = await fetch(path, { method: "PATCH", headers: json, body: JSON.stringify({ title: "Token in body", ownerToken }) });
    expect(inBody.status).toBe(401);
    const edited = await fetch(path, { method: "PATCH", headers: { ...json, "x-notice-token": ownerToken }, body: JSON.stringify({ title: "Edited title" }) });
    expect(edited.status).toBe(200);
    expect((await fetch(path, { method: "DELETE", headers: { "x-notice-token": `${ownerToken}x` } })).status).toBe(401);
    expect((await fetch(path, { method: "DELETE", headers: { "x-notice-token": ownerToken } })).status).toBe(200);

    const text = logs.lines.join("");
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(text).toContain(id);
    expect(text).not.toContain(ownerToken);
    expect(text).not.toContain(ownerToken.slice(3));
  });
});
