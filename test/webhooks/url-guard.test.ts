import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../src/core/errors.js";
import {
  HOST_NOT_PUBLIC_MESSAGE,
  HOST_NOT_PUBLIC_RULE,
  checkAddress,
  checkWebhookUrl,
  checkWebhookUrlSyntax,
  type ResolvedAddress,
  type Resolver,
  type WebhookUrlPolicy,
} from "../../src/webhooks/url-guard.js";

const STRICT: WebhookUrlPolicy = { allowHttp: false, allowPrivate: false };
const DEV: WebhookUrlPolicy = { allowHttp: true, allowPrivate: true };
const PRIVATE_ONLY: WebhookUrlPolicy = { allowHttp: false, allowPrivate: true };

function fam(address: string): number {
  return address.includes(":") ? 6 : 4;
}

/** A DNS the test controls; counts lookups. Unknown names are NXDOMAIN. */
function fakeDns(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const r = (async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const answers = table[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return answers.map((address) => ({ address, family: fam(address) }));
  }) as Resolver & { calls: string[] };
  r.calls = calls;
  return r;
}

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error("expected a rejection");
}

function syncRejection(f: () => unknown): ServiceError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error("expected a throw");
}

describe("checkWebhookUrl: IP literals (after WHATWG normalisation)", () => {
  const noDns = fakeDns({});
  const blockedAlways: [string, string][] = [
    ["https://0.0.0.0/", "non_public_address"],
    ["https://0/", "non_public_address"],
    ["https://255.255.255.255/", "non_public_address"],
    ["https://224.0.0.1/", "non_public_address"],
    ["https://198.18.0.1/", "non_public_address"],
    ["https://192.0.2.10/", "non_public_address"],
    ["https://[::]/", "non_public_address"],
    ["https://[ff02::1]/", "non_public_address"],
    ["https://[2001:db8::1]/", "non_public_address"],
    ["https://[::7f00:1]/", "non_public_address"], // IPv4-compatible ::127.0.0.1; ipaddr.js calls it unicast
    ["https://[2002:7f00:1::]/", "non_public_address"], // 6to4 wrapping 127.0.0.1
    ["https://[64:ff9b::a00:1]/", "non_public_address"], // NAT64 wrapping 10.0.0.1
    ["https://169.254.169.254/latest/meta-data/", "metadata_address"],
    ["https://[::ffff:169.254.169.254]/", "metadata_address"],
    ["https://[fd00:ec2::254]/", "metadata_address"],
    ["https://100.100.100.200/", "metadata_address"],
    ["https://168.63.129.16/", "metadata_address"],
    ["https://169.254.170.2/v2/credentials", "metadata_address"],
  ];
  const devOnly: string[] = [
    "https://127.0.0.1/",
    "https://127.1/", // WHATWG: 127.0.0.1
    "https://2130706433/", // decimal 127.0.0.1
    "https://0x7f.1/", // hex
    "https://0x7f000001/",
    "https://0177.0.0.1/", // octal
    "https://10.0.0.1/",
    "https://172.16.5.4/",
    "https://172.31.255.255/",
    "https://192.168.1.1/",
    "https://169.254.1.1/", // link-local
    "https://100.64.0.1/", // CGNAT
    "https://100.127.255.254/",
    "https://[::1]/",
    "https://[fc00::1]/", // ULA
    "https://[fd12:3456::1]/",
    "https://[fe80::1]/", // IPv6 link-local
    "https://[::ffff:127.0.0.1]/", // IPv4-mapped loopback
    "https://[::ffff:10.0.0.1]/",
    "https://[::ffff:192.168.0.1]/",
    "https://[0:0:0:0:0:ffff:7f00:1]/",
  ];

  it.each(blockedAlways)("%s is refused under every policy (%s)", async (url, rule) => {
    for (const policy of [STRICT, DEV]) {
      const err = await rejection(checkWebhookUrl(url, policy, noDns));
      expect(err.status).toBe(400);
      expect(err.code).toBe("invalid_webhook_url");
      expect(err.details).toEqual({ rule });
    }
  });

  it.each(devOnly)("%s is refused by default and admitted only with allowPrivate", async (url) => {
    const err = await rejection(checkWebhookUrl(url, STRICT, noDns));
    expect(err.details).toEqual({ rule: "non_public_address" });
    expect(err.message).toMatch(/public address/);
    await expect(checkWebhookUrl(url, PRIVATE_ONLY, noDns)).resolves.toBeInstanceOf(URL);
  });

  it.each(["https://8.8.8.8/hook", "https://1.1.1.1:8443/x?y=1", "https://[2606:4700::1111]/", "https://[::ffff:8.8.8.8]/"])(
    "%s (public) is admitted",
    async (url) => {
      await expect(checkWebhookUrl(url, STRICT, noDns)).resolves.toBeInstanceOf(URL);
    },
  );

  it("never consults DNS for literals", () => {
    expect(noDns.calls).toEqual([]);
  });

  it("names the address class in the message", async () => {
    expect((await rejection(checkWebhookUrl("https://100.64.1.1/", STRICT, noDns))).message).toContain("carrier-grade NAT");
    expect((await rejection(checkWebhookUrl("https://[fd00::1]/", STRICT, noDns))).message).toContain("unique-local");
    expect((await rejection(checkWebhookUrl("https://[::ffff:7f00:1]/", STRICT, noDns))).message).toContain("loopback");
  });
});

describe("checkWebhookUrl: scheme, credentials, syntax", () => {
  const dns = fakeDns({ "hooks.example.com": ["93.184.216.34"] });
  const cases: [string, WebhookUrlPolicy, string][] = [
    ["http://hooks.example.com/", STRICT, "https_only"],
    ["http://hooks.example.com/", PRIVATE_ONLY, "https_only"],
    ["ftp://hooks.example.com/", DEV, "https_only"],
    ["file:///etc/passwd", DEV, "https_only"],
    ["javascript:alert(1)", DEV, "https_only"],
    ["https://user:pass@hooks.example.com/", STRICT, "credentials"],
    ["https://user@hooks.example.com/", STRICT, "credentials"],
    ["https://:pw@hooks.example.com/", STRICT, "credentials"],
    ["not a url", STRICT, "malformed"],
    ["", STRICT, "malformed"],
    ["/relative/path", STRICT, "malformed"],
    ["https://hooks.example.com/" + "a".repeat(2100), STRICT, "too_long"],
  ];
  it.each(cases)("%s → %s", async (url, policy, rule) => {
    const err = await rejection(checkWebhookUrl(url, policy, dns));
    expect(err.details).toEqual({ rule });
    expect(err.code).toBe("invalid_webhook_url");
  });

  it("admits http only with allowHttp", async () => {
    await expect(checkWebhookUrl("http://hooks.example.com/x", { allowHttp: true, allowPrivate: false }, dns)).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl("https://hooks.example.com/x", STRICT, dns)).resolves.toMatchObject({ hostname: "hooks.example.com" });
  });
});

describe("checkWebhookUrl: names, with every A/AAAA answer checked", () => {
  const dns = fakeDns({
    "public.example": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "private.example": ["10.1.2.3"],
    "loopback.example": ["127.0.0.1"],
    "ula.example": ["fd00:1234::5"],
    "linklocal6.example": ["fe80::abcd"],
    "cgnat.example": ["100.72.1.1"],
    "mapped.example": ["::ffff:192.168.10.10"],
    "metadata-alias.example": ["169.254.169.254"],
    "mixed.example": ["93.184.216.34", "10.0.0.7"], // public first, then private
    "mixed6.example": ["2606:4700::1111", "::1"],
    "empty.example": [],
    localhost: ["127.0.0.1", "::1"],
  });

  it("admits a name whose answers are all public", async () => {
    const url = await checkWebhookUrl("https://public.example/hook", STRICT, dns);
    expect(url.hostname).toBe("public.example");
  });

  it.each([
    ["private.example", "private"],
    ["loopback.example", "loopback"],
    ["ula.example", "unique-local"],
    ["linklocal6.example", "link-local"],
    ["cgnat.example", "carrier-grade NAT"],
    ["mapped.example", "private"],
  ])("refuses %s (%s) unless allowPrivate", async (host) => {
    const err = await rejection(checkWebhookUrl(`https://${host}/`, STRICT, dns));
    // DNS-based: the one rule and message, which names neither the address nor its class.
    expect(err.details).toEqual({ rule: HOST_NOT_PUBLIC_RULE });
    expect(err.message).toBe(HOST_NOT_PUBLIC_MESSAGE);
    await expect(checkWebhookUrl(`https://${host}/`, PRIVATE_ONLY, dns)).resolves.toBeInstanceOf(URL);
  });

  it("refuses a name that resolves to a public and then a private address", async () => {
    for (const host of ["mixed.example", "mixed6.example"]) {
      const err = await rejection(checkWebhookUrl(`https://${host}/`, STRICT, dns));
      expect(err.details).toEqual({ rule: HOST_NOT_PUBLIC_RULE });
    }
  });

  it("refuses a name aliased to a metadata address even with allowPrivate", async () => {
    const err = await rejection(checkWebhookUrl("https://metadata-alias.example/", DEV, dns));
    expect(err.details).toEqual({ rule: HOST_NOT_PUBLIC_RULE });
  });

  it("refuses metadata host names without resolving them", async () => {
    const before = dns.calls.length;
    for (const host of ["metadata.google.internal", "METADATA.GOOGLE.INTERNAL.", "metadata.goog", "instance-data"]) {
      const err = await rejection(checkWebhookUrl(`https://${host}/computeMetadata/v1/`, DEV, dns));
      expect(err.details).toEqual({ rule: "metadata_address" });
    }
    expect(dns.calls.length).toBe(before);
  });

  it("refuses localhost by name in strict mode without asking DNS, and vets its answers under allowPrivate", async () => {
    const before = dns.calls.length;
    for (const url of ["https://localhost/", "https://LOCALHOST./", "https://foo.localhost/"]) {
      expect((await rejection(checkWebhookUrl(url, STRICT, dns))).details).toEqual({ rule: "non_public_address" });
    }
    expect(dns.calls.length).toBe(before);
    await expect(checkWebhookUrl("https://localhost:8443/", PRIVATE_ONLY, dns)).resolves.toBeInstanceOf(URL);
  });

  it("refuses NXDOMAIN and empty answers", async () => {
    const nx = await rejection(checkWebhookUrl("https://no-such-host.example/", STRICT, dns));
    expect(nx.details).toEqual({ rule: HOST_NOT_PUBLIC_RULE });
    const empty = await rejection(checkWebhookUrl("https://empty.example/", STRICT, dns));
    expect(empty.details).toEqual({ rule: HOST_NOT_PUBLIC_RULE });
  });

  it("every DNS-based refusal answers one code, rule and message: an outsider learns nothing about internal names", async () => {
    const failing: Resolver = async (host) => {
      if (host === "dns-error.example") throw Object.assign(new Error("boom"), { code: "ESERVFAIL" });
      return dns(host);
    };
    const urls = [
      "https://no-such-host.example/",
      "https://empty.example/",
      "https://dns-error.example/",
      "https://private.example/",
      "https://loopback.example/",
      "https://mixed.example/",
      "https://metadata-alias.example/",
    ];
    const answers = new Set<string>();
    for (const url of urls) {
      const err = await rejection(checkWebhookUrl(url, STRICT, failing));
      answers.add(JSON.stringify({ status: err.status, code: err.code, message: err.message, details: err.details }));
    }
    expect([...answers]).toEqual([
      JSON.stringify({ status: 400, code: "invalid_webhook_url", message: HOST_NOT_PUBLIC_MESSAGE, details: { rule: HOST_NOT_PUBLIC_RULE } }),
    ]);
  });

  it("refuses a URL that can never deliver (port 0) before any DNS", async () => {
    const before = dns.calls.length;
    for (const url of ["https://public.example:0/hook", "https://93.184.216.34:0/", "http://127.0.0.1:0/"]) {
      const err = await rejection(checkWebhookUrl(url, DEV, dns));
      expect(err.details, url).toEqual({ rule: "port" });
    }
    expect(dns.calls.length).toBe(before);
  });

  it("uses the system resolver by default (localhost from the hosts file)", async () => {
    await expect(checkWebhookUrl("https://localhost/", PRIVATE_ONLY)).resolves.toBeInstanceOf(URL);
  });
});

describe("checkAddress", () => {
  const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join("."));

  it("judges an IPv4-mapped IPv6 address exactly like the IPv4 address it wraps", () => {
    fc.assert(
      fc.property(v4, fc.boolean(), (ip, allowPrivate) => {
        const policy = { allowHttp: false, allowPrivate };
        const a = checkAddress(ip, policy);
        const b = checkAddress(`::ffff:${ip}`, policy);
        expect(b.allowed).toBe(a.allowed);
        expect(b.range).toBe(a.range);
      }),
      { numRuns: 2000 },
    );
  });

  it("never admits an RFC 1918, loopback, link-local or CGNAT IPv4 address under the strict policy", () => {
    const inRange = fc.oneof(
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
    );
    fc.assert(
      fc.property(inRange, (p) => {
        const ip = p.join(".");
        expect(checkAddress(ip, STRICT).allowed).toBe(false);
        expect(checkAddress(`::ffff:${ip}`, STRICT).allowed).toBe(false);
        // and the URL form, whatever notation the WHATWG parser normalised from
        const decimal = (((p[0] * 256 + p[1]) * 256 + p[2]) * 256 + p[3]).toString();
        expect(() => checkWebhookUrlSyntax(`https://${decimal}/`, STRICT)).toThrow(ServiceError);
      }),
      { numRuns: 1000 },
    );
  });

  it("admits IPv6 only inside 2000::/3 and refuses fc00::/7 and fe80::/10 under the strict policy", () => {
    const hextet = fc.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), fc.array(hextet, { minLength: 7, maxLength: 7 }), (first, rest) => {
        const ip = [first.toString(16), ...rest].join(":");
        const v = checkAddress(ip, STRICT);
        if (first >= 0xfc00 && first <= 0xfdff) expect(v.allowed).toBe(false);
        if (first >= 0xfe80 && first <= 0xfebf) expect(v.allowed).toBe(false);
        if (first < 0x2000 || first > 0x3fff) expect(v.allowed).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("rejects strings that are not canonical IP addresses", () => {
    expect(checkAddress("example.com", DEV)).toMatchObject({ allowed: false, rule: "not_an_ip" });
    expect(checkAddress("0x7f.1", DEV)).toMatchObject({ allowed: false, rule: "not_an_ip" });
  });

  it("keeps metadata addresses blocked under allowPrivate", () => {
    for (const ip of ["169.254.169.254", "fd00:ec2::254", "FD00:EC2:0:0:0:0:0:254", "100.100.100.200", "::ffff:169.254.169.254"]) {
      expect(checkAddress(ip, DEV)).toMatchObject({ allowed: false, rule: "metadata_address" });
    }
    expect(syncRejection(() => checkWebhookUrlSyntax("http://[fd00:ec2::254]/", DEV)).details).toEqual({ rule: "metadata_address" });
  });
});
