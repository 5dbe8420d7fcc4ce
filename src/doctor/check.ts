/**
 * What every doctor check returns, and the few helpers they share.
 *
 * A check is a plain async function from the configuration (and a deadline
 * signal) to one CheckResult: `ok` decides the exit code, `warn` marks a
 * passing check the operator should still read (an upstream left out on
 * purpose, metrics on a private network), `fix` says what to change.
 * Nothing here prints; index.ts formats, and scrubs secrets from every line.
 */
import type { Config } from "../config.js";
import { ServiceError } from "../core/errors.js";

export interface CheckResult {
  /** Short and stable (`database`, `monerod`, `ethereum 2`): the first column of the output. */
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
  /** Passes, with something worth reading (shown as WARN; does not change the exit code). */
  warn?: boolean;
}

export interface CheckContext {
  config: Config;
  /** Aborted when the check's time is up. */
  signal: AbortSignal;
  /** The check's time budget; clients get it as their per-attempt deadline. */
  timeoutMs: number;
}

export const pass = (name: string, detail: string): CheckResult => ({ name, ok: true, detail });
export const warn = (name: string, detail: string, fix?: string): CheckResult => ({ name, ok: true, warn: true, detail, ...(fix ? { fix } : {}) });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, ok: false, detail, fix });

/** An upstream the operator left out: the routes that need it answer 503; a warning, not a failure. */
export const notConfigured = (name: string, setting: string, effect: string): CheckResult =>
  warn(name, `not configured (${setting} unset): ${effect}`, `set ${setting} if this server should offer it`);

/**
 * A URL as the doctor shows it: scheme, host and port only. Credentials go,
 * and so do path and query, which often carry an API key (…/v3/<key>).
 */
export function shownUrl(raw: string): string {
  try {
    const u = new URL(raw);
    const more = (u.pathname !== "/" && u.pathname !== "") || u.search !== "" ? "/…" : "";
    return `${u.protocol}//${u.host}${more}`;
  } catch {
    return "(unparseable URL)";
  }
}

/** One line from an error: our ServiceErrors carry a clean message; anything else its message. */
export function reason(e: unknown): string {
  if (e instanceof ServiceError) {
    const why = e.details?.reason;
    return typeof why === "string" && !e.message.includes(why) ? `${e.message} (${why})` : e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

/** The problems found by one check, turned into its single line. */
export function verdict(name: string, okDetail: string, problems: { detail: string; fix: string }[], notes: string[] = []): CheckResult {
  const noted = notes.length ? `${okDetail}; ${notes.join("; ")}` : okDetail;
  if (problems.length === 0) return pass(name, noted);
  return fail(name, `${problems.map((p) => p.detail).join("; ")} (${noted})`, problems.map((p) => p.fix).join("; "));
}

/**
 * Runs one check under its own deadline. A check that hangs (an upstream that
 * accepts the connection and never answers) becomes a FAIL at the deadline,
 * whether or not its client honours the signal; a check that throws becomes a
 * FAIL with the reason.
 */
export async function runWithDeadline(name: string, timeoutMs: number, fixOnError: string, run: (signal: AbortSignal) => Promise<CheckResult>): Promise<CheckResult> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`no answer within ${timeoutMs / 1000} s`));
      resolve(fail(name, `no answer within ${timeoutMs / 1000} s`, fixOnError));
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      run(controller.signal).catch((e: unknown) => (controller.signal.aborted ? fail(name, `no answer within ${timeoutMs / 1000} s`, fixOnError) : fail(name, reason(e), fixOnError))),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface UpstreamProbe<C> {
  name: string;
  url: string | undefined;
  /** Said when url is undefined: the setting and what then answers 503. */
  unset: { setting: string; effect: string };
  /** What the line calls the upstream (default its shown URL). */
  label?: string;
  open: (url: string) => C;
  close: (client: C) => unknown;
  unreachableFix: string;
  run: (client: C, where: string) => Promise<CheckResult>;
}

/**
 * The frame of every upstream check: not configured is a warning; otherwise
 * the service's own client is opened, `run` reads through it, an error it
 * does not handle means the upstream is unreachable (FAIL), and the client
 * is closed whatever happened.
 */
export async function probeUpstream<C>(p: UpstreamProbe<C>): Promise<CheckResult> {
  if (!p.url) return notConfigured(p.name, p.unset.setting, p.unset.effect);
  const where = p.label ?? shownUrl(p.url);
  const client = p.open(p.url);
  try {
    return await p.run(client, where);
  } catch (e) {
    return fail(p.name, `${where} unreachable: ${reason(e)}`, p.unreachableFix);
  } finally {
    await p.close(client);
  }
}
