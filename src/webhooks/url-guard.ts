/**
 * SSRF guard for webhook URLs.
 *
 * Used twice: at watch creation (`checkWebhookUrl`, which resolves the name and
 * checks every A/AAAA answer) and at every delivery (deliver.ts re-runs the
 * syntax/literal check and vets the addresses inside the socket's own DNS
 * lookup, so the address checked is the address connected to).
 *
 * Address policy is an allow-list: an address is public only when ipaddr.js
 * classifies it `unicast` (IPv6 additionally inside 2000::/3, because
 * ipaddr.js calls e.g. the deprecated IPv4-compatible `::7f00:1` unicast).
 * IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is unwrapped first and judged as IPv4.
 *
 * Development switches: `allowHttp` admits `http:` URLs; `allowPrivate`
 * additionally admits private (RFC 1918), loopback, link-local, CGNAT and IPv6
 * unique-local addresses. Cloud metadata addresses and names, unspecified,
 * multicast, broadcast, reserved and translation ranges (6to4, Teredo, NAT64,
 * …) stay blocked under every policy.
 */
import { promises as dns } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { badRequest } from "../core/errors.js";

export interface WebhookUrlPolicy {
  /** Admit `http:` (development only; env WEBHOOK_ALLOW_HTTP=1). */
  allowHttp: boolean;
  /** Admit private/loopback/link-local/CGNAT/ULA targets (development only; env WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivate: boolean;
}

export const STRICT_POLICY: WebhookUrlPolicy = Object.freeze({ allowHttp: false, allowPrivate: false });

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all of its addresses. Injected so tests can play DNS. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) => {
  const answers = await dns.lookup(host, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family }));
};

export const MAX_WEBHOOK_URL_LENGTH = 2048;
const RESOLVE_TIMEOUT_MS = 5000;

/** Metadata endpoints of the big clouds: blocked whatever the policy. */
export const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  "169.254.169.254", // AWS, GCP, Azure, OCI, DigitalOcean, … instance metadata
  "169.254.169.253", // AWS VPC DNS
  "169.254.170.2", // AWS ECS task metadata / credentials
  "169.254.170.23", // AWS EKS pod identity agent
  "100.100.100.200", // Alibaba Cloud metadata
  "168.63.129.16", // Azure WireServer (a public-looking address)
  "fd00:ec2::254", // AWS IMDS over IPv6
  "fd00:ec2::253", // AWS VPC DNS over IPv6
  "fd00:ec2::23", // AWS EKS pod identity over IPv6
]);

export const METADATA_HOSTNAMES: ReadonlySet<string> = new Set([
  "metadata.google.internal",
  "metadata.goog",
  "metadata",
  "instance-data",
  "instance-data.ec2.internal",
]);

/** Ranges admitted only under `allowPrivate`. */
const DEVELOPMENT_RANGES: ReadonlySet<string> = new Set(["private", "loopback", "linkLocal", "uniqueLocal", "carrierGradeNat"]);

export type AddressVerdict =
  | { allowed: true; address: string; range: string }
  | { allowed: false; address: string; range: string; rule: "metadata_address" | "non_public_address" | "not_an_ip" };

/**
 * Classifies one IP address (canonical textual form, as from DNS or a
 * normalised URL host, without brackets) under `policy`.
 */
export function checkAddress(address: string, policy: WebhookUrlPolicy): AddressVerdict {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (isIP(bare) === 0 || !ipaddr.isValid(bare)) return { allowed: false, address: bare, range: "invalid", rule: "not_an_ip" };
  // process() unwraps ::ffff:a.b.c.d so the IPv4 rules apply to it.
  const ip = ipaddr.process(bare);
  const canonical = ip.toString();
  const range = ip.range();
  if (METADATA_ADDRESSES.has(canonical) || METADATA_ADDRESSES.has(ip.toNormalizedString())) {
    return { allowed: false, address: canonical, range: "metadata", rule: "metadata_address" };
  }
  if (range === "unicast") {
    if (ip.kind() === "ipv4") return { allowed: true, address: canonical, range };
    const first = (ip as ipaddr.IPv6).parts[0];
    if (first >= 0x2000 && first <= 0x3fff) return { allowed: true, address: canonical, range };
    return { allowed: false, address: canonical, range: "nonGlobalIPv6", rule: "non_public_address" };
  }
  if (policy.allowPrivate && DEVELOPMENT_RANGES.has(range)) return { allowed: true, address: canonical, range };
  return { allowed: false, address: canonical, range, rule: "non_public_address" };
}

function refuse(rule: string, message: string): never {
  throw badRequest("invalid_webhook_url", message, { rule });
}

/**
 * Every refusal that depends on what a name resolves to (no answer, a DNS
 * error or timeout, a private, loopback or metadata address among the
 * answers) reads the same: the free pre-check must not tell an outsider
 * which internal host names exist or where they point.
 */
export const HOST_NOT_PUBLIC_RULE = "host_not_public";
export const HOST_NOT_PUBLIC_MESSAGE = "webhookUrl host must resolve, and only to public addresses";

function refuseResolvedHost(): never {
  refuse(HOST_NOT_PUBLIC_RULE, HOST_NOT_PUBLIC_MESSAGE);
}

export interface ParsedWebhookUrl {
  url: URL;
  /** Host name without brackets or trailing dot, lower case. */
  host: string;
  /** True when the host is an IP literal (already checked). */
  literal: boolean;
}

/**
 * Everything that can be decided without DNS: URL syntax, scheme,
 * credentials, metadata host names, and IP-literal hosts (which the WHATWG
 * parser has already normalised: `2130706433` and `0x7f.1` become
 * `127.0.0.1`, `[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`).
 * Throws `badRequest("invalid_webhook_url", …)`.
 */
export function checkWebhookUrlSyntax(raw: string, policy: WebhookUrlPolicy): ParsedWebhookUrl {
  if (typeof raw !== "string" || raw.length === 0) refuse("malformed", "webhookUrl must be a non-empty absolute URL");
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) refuse("too_long", `webhookUrl must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    refuse("malformed", "webhookUrl is not a valid absolute URL");
  }
  if (url.protocol === "http:") {
    if (!policy.allowHttp) refuse("https_only", "webhookUrl must use https (plain http is disabled on this server)");
  } else if (url.protocol !== "https:") {
    refuse("https_only", "webhookUrl must use https");
  }
  if (url.username !== "" || url.password !== "") refuse("credentials", "webhookUrl must not contain user credentials");
  // Port 0 is never listened on: a watch pointed there could never receive an event.
  if (url.port === "0") refuse("port", "webhookUrl port 0 can never receive a connection");
  let host = url.hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  while (host.endsWith(".")) host = host.slice(0, -1);
  if (host === "") refuse("malformed", "webhookUrl has no host");

  if (isIP(host) !== 0) {
    const verdict = checkAddress(host, policy);
    if (!verdict.allowed) refuse(verdict.rule, describeRefusal(verdict, true));
    return { url, host, literal: true };
  }
  if (METADATA_HOSTNAMES.has(host)) refuse("metadata_address", "webhookUrl must not point at a cloud metadata service");
  // `localhost` must not depend on the resolver's mood (RFC 6761 §6.3).
  if ((host === "localhost" || host.endsWith(".localhost")) && !policy.allowPrivate) {
    refuse("non_public_address", "webhookUrl must not point at a loopback host");
  }
  return { url, host, literal: false };
}

function describeRefusal(verdict: Extract<AddressVerdict, { allowed: false }>, literal: boolean): string {
  const where = literal ? `address ${verdict.address}` : "an address the host resolves to";
  if (verdict.rule === "metadata_address") return `webhookUrl must not point at a cloud metadata address (${where})`;
  return `webhookUrl must point at a public address: ${where} is ${rangeName(verdict.range)}`;
}

const RANGE_NAMES: Record<string, string> = {
  private: "private (RFC 1918)",
  loopback: "loopback",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT (RFC 6598)",
  uniqueLocal: "IPv6 unique-local",
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  reserved: "reserved",
  nonGlobalIPv6: "outside the global IPv6 unicast range",
};
function rangeName(range: string): string {
  return RANGE_NAMES[range] ?? `a special-purpose range (${range})`;
}

/**
 * Vets resolver answers for `host`: refuses an empty answer and refuses if
 * ANY answer is blocked (a name with one bad address is a bad name).
 * Returns the answers unchanged when all pass. Throws `badRequest`.
 */
export function checkResolvedAddresses(answers: readonly ResolvedAddress[], policy: WebhookUrlPolicy): ResolvedAddress[] {
  if (answers.length === 0) refuseResolvedHost();
  for (const a of answers) {
    if (!checkAddress(a.address, policy).allowed) refuseResolvedHost();
  }
  return [...answers];
}

async function resolveWithTimeout(resolver: Resolver, host: string): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      resolver(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error("DNS lookup timed out"), { code: "ETIMEOUT" })), RESOLVE_TIMEOUT_MS);
        timer.unref?.();
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/**
 * Creation-time check. Returns the parsed URL or throws
 * `badRequest("invalid_webhook_url", <message naming the rule>)` with
 * `details.rule` one of: malformed, too_long, https_only, credentials, port,
 * metadata_address, non_public_address (decided from the URL alone), and
 * host_not_public for every refusal that depends on DNS (NXDOMAIN, an empty
 * answer, a timeout, or a non-public or metadata address among the answers),
 * always with the same message.
 */
export async function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy, resolver: Resolver = systemResolver): Promise<URL> {
  const parsed = checkWebhookUrlSyntax(raw, policy);
  if (parsed.literal) return parsed.url;
  let answers: ResolvedAddress[];
  try {
    answers = await resolveWithTimeout(resolver, parsed.host);
  } catch {
    refuseResolvedHost();
  }
  checkResolvedAddresses(answers, policy);
  return parsed.url;
}
