/**
 * Authorization hooks for the upstream client, fed with the credentials
 * found in an upstream's URL. HTTP digest (RFC 7616, MD5 / MD5-sess, qop
 * auth) is what monerod --rpc-login speaks; basic is what a proxy in front of
 * a node usually wants. Basic is only ever sent over https, where it is not
 * readable on the wire; digest is answered once the server challenges.
 * Credentials stay inside the hook: nothing here logs or returns them except
 * as the Authorization header.
 */
import { createHash, randomBytes } from "node:crypto";

export interface UpstreamCredentials {
  user: string;
  pass: string;
}

export interface UpstreamAuth {
  /** The Authorization header for the next request to `uri` (path from the host on), if any. */
  header(method: string, uri: string): string | undefined;
  /**
   * Told the WWW-Authenticate header(s) of a 401. True when a fresh challenge
   * was taken and the request is worth sending again at once; false when the
   * credentials themselves were refused.
   */
  challenge(wwwAuthenticate: string | string[] | undefined): boolean;
}

export interface DigestChallenge {
  realm: string;
  nonce: string;
  qop: string | undefined;
  opaque: string | undefined;
  algorithm: string;
  stale: boolean;
}

/** The first usable `Digest` challenge (MD5 or MD5-sess) among the headers. */
export function parseDigestChallenge(header: string | string[] | undefined): DigestChallenge | undefined {
  const values = Array.isArray(header) ? header : header ? [header] : [];
  for (const h of values) {
    const m = /^\s*Digest\s+(.*)$/i.exec(h);
    if (!m) continue;
    const params: Record<string, string> = {};
    const re = /([a-zA-Z]+)=(?:"([^"]*)"|([^,\s]*))/g;
    let p: RegExpExecArray | null;
    while ((p = re.exec(m[1]!))) params[p[1]!.toLowerCase()] = p[2] ?? p[3] ?? "";
    if (!params.nonce) continue;
    const algorithm = (params.algorithm ?? "MD5").toUpperCase();
    if (algorithm !== "MD5" && algorithm !== "MD5-SESS") continue;
    const qops = (params.qop ?? "").split(",").map((s) => s.trim());
    return {
      realm: params.realm ?? "",
      nonce: params.nonce,
      qop: qops.includes("auth") ? "auth" : undefined,
      opaque: params.opaque,
      algorithm,
      stale: (params.stale ?? "").toLowerCase() === "true",
    };
  }
  return undefined;
}

const md5 = (s: string) => createHash("md5").update(s).digest("hex");

/** The Authorization header answering challenge `c` for request number `nc` under it. */
export function digestAuthorization(c: DigestChallenge, cred: UpstreamCredentials, method: string, uri: string, nc: number): string {
  const cnonce = randomBytes(8).toString("hex");
  const ncHex = nc.toString(16).padStart(8, "0");
  let ha1 = md5(`${cred.user}:${c.realm}:${cred.pass}`);
  if (c.algorithm === "MD5-SESS") ha1 = md5(`${ha1}:${c.nonce}:${cnonce}`);
  const ha2 = md5(`${method}:${uri}`);
  const response = c.qop ? md5(`${ha1}:${c.nonce}:${ncHex}:${cnonce}:${c.qop}:${ha2}`) : md5(`${ha1}:${c.nonce}:${ha2}`);
  const parts = [
    `username="${cred.user}"`,
    `realm="${c.realm}"`,
    `nonce="${c.nonce}"`,
    `uri="${uri}"`,
    `algorithm=${c.algorithm}`,
    `response="${response}"`,
  ];
  if (c.qop) parts.push(`qop=${c.qop}`, `nc=${ncHex}`, `cnonce="${cnonce}"`);
  if (c.opaque !== undefined) parts.push(`opaque="${c.opaque}"`);
  return "Digest " + parts.join(", ");
}

/**
 * Digest once challenged; until then basic, pre-emptively, over https only.
 * A challenge is taken when it is new (another nonce, or marked stale);
 * the same nonce challenged again means the credentials are wrong.
 */
export function loginAuth(cred: UpstreamCredentials, base: URL): UpstreamAuth {
  let digest: DigestChallenge | undefined;
  let nc = 0;
  return {
    header(method, uri) {
      if (digest) return digestAuthorization(digest, cred, method, uri, ++nc);
      if (base.protocol === "https:") return "Basic " + Buffer.from(`${cred.user}:${cred.pass}`).toString("base64");
      return undefined;
    },
    challenge(wwwAuthenticate) {
      const c = parseDigestChallenge(wwwAuthenticate);
      if (!c || (digest && digest.nonce === c.nonce && !c.stale)) return false;
      digest = c;
      nc = 0;
      return true;
    },
  };
}
