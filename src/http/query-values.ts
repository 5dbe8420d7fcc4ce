/**
 * Typed parameters of GET routes. A number is a number and a flag is a
 * boolean in the route's schema, so the JSON Schema that OpenAPI and the MCP
 * tool list publish says `number` / `integer` / `boolean`, and an MCP client
 * sends `{max_fee_bps: 0, multi_asset: true}`. The query string can only
 * carry text, so each helper also takes the value's plain decimal spelling
 * ("0", "2.5") or "true" / "false" and reads it as the JSON value; any other
 * text is refused with the field's own message, as a wrong JSON type is.
 */
import { z } from "zod";

const DECIMAL = /^\d{1,16}(\.\d{1,16})?$/;
const INTEGER = /^\d{1,16}$/;

function fromQuery(pattern: RegExp): (v: unknown) => unknown {
  return (v) => (typeof v === "string" && pattern.test(v) ? Number(v) : v);
}

/** A non-negative number from `min` to `max`: a JSON number, or its decimal spelling in a query string. */
export function queryNumber(opts: { min: number; max: number; message: string }) {
  return z.preprocess(fromQuery(DECIMAL), z.number({ error: opts.message }).min(opts.min, opts.message).max(opts.max, opts.message));
}

/** A non-negative integer from `min` to `max`: a JSON integer, or its digits in a query string. */
export function queryInteger(opts: { min: number; max: number; message: string }) {
  return z.preprocess(fromQuery(INTEGER), z.number({ error: opts.message }).int(opts.message).min(opts.min, opts.message).max(opts.max, opts.message));
}

/** A flag: JSON true/false, or "true"/"false" in a query string. */
export function queryBoolean(opts: { message: string }) {
  return z.preprocess((v) => (v === "true" ? true : v === "false" ? false : v), z.boolean({ error: opts.message }));
}
