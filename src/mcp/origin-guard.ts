/**
 * Who may call the MCP endpoint over HTTP: the Streamable HTTP transport's
 * DNS-rebinding rule ("servers MUST validate the Origin header"). A page on
 * evil.example.com whose name the attacker re-points at 127.0.0.1 reaches a
 * server on loopback with `Origin: http://evil.example.com` and
 * `Host: evil.example.com`; both are checked (docs/mcp.md, "Origin and Host").
 *
 *   1. No Origin header (agents, SDK clients, curl: not a browser): allowed.
 *   2. An Origin is allowed when it is the service's own public origin
 *      (PUBLIC_URL, MCP_PUBLIC_URL), a loopback origin (localhost,
 *      127.0.0.0/8, [::1], any port) while the service listens on loopback,
 *      or listed in MCP_ALLOWED_ORIGINS; `*` there allows any Origin.
 *   3. The Host header is checked while the service listens on loopback, and
 *      whenever MCP_ALLOWED_HOSTS is set: its host name (port ignored) must be
 *      a loopback name, the host name of PUBLIC_URL or MCP_PUBLIC_URL, or
 *      listed in MCP_ALLOWED_HOSTS; `*` there turns the check off.
 *
 * Pure: headers in, verdict out. The refusal is a 403 whose body is a
 * JSON-RPC error with id null, the form MCP clients read.
 */
import ipaddr from "ipaddr.js";

export interface McpAccessSettings {
  /** The address the service listens on (HOST). */
  listenHost: string;
  /** The service's own public URLs, read per request (the bound port is known once it listens). */
  publicUrls: () => readonly (string | undefined)[];
  /** MCP_ALLOWED_ORIGINS as given (comma list), if set. */
  allowedOrigins?: string | undefined;
  /** MCP_ALLOWED_HOSTS as given (comma list), if set. */
  allowedHosts?: string | undefined;
}

export type AccessVerdict =
  | { allowed: true }
  | { allowed: false; reason: "origin_not_allowed" | "host_not_allowed"; message: string; setting: "MCP_ALLOWED_ORIGINS" | "MCP_ALLOWED_HOSTS" };

export type McpAccessCheck = (headers: { origin: string | undefined; host: string | undefined }) => AccessVerdict;

/** Splits a comma list of the settings, dropping blanks. */
export function splitList(v: string | undefined): string[] {
  return (v ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The host name of a Host header value (lower case; IPv6 in brackets), or undefined when it is not one. */
function hostnameOf(host: string): string | undefined {
  try {
    const u = new URL(`http://${host}`);
    // A Host value is a host and a port only: anything that parses into more is not one.
    return u.pathname === "/" && !u.search && !u.hash && !u.username ? u.hostname : undefined;
  } catch {
    return undefined;
  }
}

/** localhost, 127.0.0.0/8 or ::1 (a URL host name: IPv6 in brackets). */
export function isLoopbackName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (h === "localhost") return true;
  if (!ipaddr.isValid(h)) return false;
  const addr = ipaddr.process(h);
  return addr.range() === "loopback";
}

/** The origin of a URL (scheme://host[:port], default port dropped, lower case), or undefined. */
function originOf(v: string): string | undefined {
  try {
    const o = new URL(v).origin;
    return o === "null" ? undefined : o;
  } catch {
    return undefined;
  }
}

export function mcpAccessCheck(settings: McpAccessSettings): McpAccessCheck {
  const onLoopback = isLoopbackName(settings.listenHost);
  const origins = splitList(settings.allowedOrigins);
  const anyOrigin = origins.includes("*");
  const listedOrigins = new Set(origins.flatMap((o) => originOf(o) ?? []));
  const hosts = settings.allowedHosts === undefined ? undefined : splitList(settings.allowedHosts);
  const checkHost = hosts === undefined ? onLoopback : !hosts.includes("*");
  const listedHosts = new Set((hosts ?? []).flatMap((h) => hostnameOf(h) ?? []));
  const ownUrls = () => settings.publicUrls().filter((u): u is string => Boolean(u));

  const originAllowed = (origin: string): boolean => {
    if (anyOrigin) return true;
    const o = originOf(origin);
    // "null" (sandboxed frames, file:) and anything unparsable is no origin we can vouch for.
    if (!o) return false;
    if (listedOrigins.has(o)) return true;
    if (ownUrls().some((u) => originOf(u) === o)) return true;
    const u = new URL(o);
    return onLoopback && (u.protocol === "http:" || u.protocol === "https:") && isLoopbackName(u.hostname);
  };

  const hostAllowed = (host: string | undefined): boolean => {
    if (!checkHost) return true;
    const name = host === undefined ? undefined : hostnameOf(host);
    if (!name) return false;
    // A loopback name cannot be an attacker's domain: only a page served from loopback sends it.
    if (isLoopbackName(name) || listedHosts.has(name)) return true;
    return ownUrls().some((u) => hostnameOf(new URL(u).host) === name);
  };

  // Echoed in the refusal, so bounded.
  const shown = (v: string) => JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}…` : v);
  return ({ origin, host }) => {
    if (origin !== undefined && !originAllowed(origin)) {
      return {
        allowed: false,
        reason: "origin_not_allowed",
        setting: "MCP_ALLOWED_ORIGINS",
        message: `Forbidden: requests from the browser origin ${shown(origin)} may not call this MCP server (DNS-rebinding protection). The operator can allow it with MCP_ALLOWED_ORIGINS.`,
      };
    }
    if (!hostAllowed(host)) {
      return {
        allowed: false,
        reason: "host_not_allowed",
        setting: "MCP_ALLOWED_HOSTS",
        message: `Forbidden: this MCP server is not served under the host name ${shown(host ?? "")} (DNS-rebinding protection). The operator can allow it with MCP_ALLOWED_HOSTS.`,
      };
    }
    return { allowed: true };
  };
}

/** The refusal MCP clients read: 403 with a JSON-RPC error (no request is answered, so id null). */
export function refusalBody(verdict: Extract<AccessVerdict, { allowed: false }>): { jsonrpc: "2.0"; error: { code: number; message: string; data: Record<string, unknown> }; id: null } {
  return { jsonrpc: "2.0", error: { code: -32000, message: verdict.message, data: { reason: verdict.reason, setting: verdict.setting } }, id: null };
}
