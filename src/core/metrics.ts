/**
 * Operational metrics in the Prometheus text format (prom-client), one
 * registry per app (never prom-client's global one, so several apps in one
 * process — tests — do not mix). The composition root creates it and passes
 * it to the modules that count; `GET /metrics` serves it (docs/operations.md).
 *
 * Metric names start with `vigil_`. Labels are bounded: routes are the route
 * table's path patterns (`unmatched` for anything else), chains the
 * configured chain ids, outcomes a fixed list.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** What the reconciler reports per pending payment it looks at (see docs/operations.md). */
export type ReconcilerFinding = "settled" | "refunded" | "failed" | "unresolved" | (string & {});

/** Outcome of one webhook delivery attempt. */
export type DeliveryOutcomeLabel = "delivered" | "http_error" | "refused" | "timeout" | "network_error";

/** Sums over every x402 channel (atomic USDC), as the channel gauges show them. */
export interface ChannelTotals {
  channels: number;
  open: number;
  deposited: bigint;
  /** Still in the escrow (deposits less refunds and withdrawals; claims included until settled). */
  balance: bigint;
  charged: bigint;
  claimed: bigint;
  settled: bigint;
  refunded: bigint;
  withdrawn: bigint;
  forfeited: bigint;
  unclaimed: bigint;
}

export interface Metrics {
  readonly registry: Registry;
  /** HTTP requests by route pattern, method and status. */
  readonly httpRequests: Counter<"route" | "method" | "status">;
  readonly httpDuration: Histogram<"route" | "method">;
  /** 402 answers (payment required or refused) by route. */
  readonly paymentRequired: Counter<"route">;
  /** x402 settlements: `settled`, or `failed` (a payment was presented and the work was not paid for). */
  readonly settlements: Counter<"outcome">;
  /** One watch tick, from lease to hand-off of its deliveries. */
  readonly tickDuration: Histogram;
  /** One chain's scan inside a tick. */
  readonly scanDuration: Histogram<"chain">;
  /** How late the most overdue watch of a chain was when its tick leased it (seconds past next_poll_at). */
  readonly scanLag: Gauge<"chain">;
  /** Webhook delivery attempts by outcome, and their latency. */
  readonly deliveries: Counter<"outcome">;
  readonly deliveryDuration: Histogram<"outcome">;
  /**
   * Findings of the payment reconciler, by kind. The reconciler increments
   * it (`metrics.reconcilerFindings.inc({ finding: "unresolved" })`).
   */
  readonly reconcilerFindings: Counter<"finding">;
  /** Sets the async collector of the webhook outbox gauges (depth and age of the oldest pending event). */
  setOutboxProbe(probe: () => Promise<{ depth: number; oldestAgeSeconds: number }>): void;
  /** x402 batch-settlement transactions sent by the channel keeper (and payers' withdrawals seen), by kind and outcome. */
  readonly channelOps: Counter<"kind" | "outcome">;
  /** Sets the async collector of the channel gauges (counts and money totals over every channel). */
  setChannelProbe(probe: () => Promise<ChannelTotals>): void;
  /** The text exposition. */
  render(): Promise<string>;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: "vigil_process_" });
  const registers = [registry];
  const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
  let probe: (() => Promise<{ depth: number; oldestAgeSeconds: number }>) | null = null;
  let lastProbe: Promise<{ depth: number; oldestAgeSeconds: number } | null> | null = null;
  // Both outbox gauges come from one query per scrape.
  const probeOnce = () => {
    if (!probe) return Promise.resolve(null);
    lastProbe ??= probe()
      .catch(() => null)
      .finally(() => setTimeout(() => (lastProbe = null), 0));
    return lastProbe;
  };

  const metrics: Metrics = {
    registry,
    httpRequests: new Counter({ name: "vigil_http_requests_total", help: "HTTP requests by route pattern, method and status.", labelNames: ["route", "method", "status"], registers }),
    httpDuration: new Histogram({ name: "vigil_http_request_duration_seconds", help: "HTTP request latency by route pattern and method.", labelNames: ["route", "method"], buckets: seconds, registers }),
    paymentRequired: new Counter({ name: "vigil_http_payment_required_total", help: "402 answers by route pattern.", labelNames: ["route"], registers }),
    settlements: new Counter({ name: "vigil_x402_settlements_total", help: "x402 payments presented: settled, or failed (refused, or the facilitator failed).", labelNames: ["outcome"], registers }),
    tickDuration: new Histogram({ name: "vigil_watch_tick_duration_seconds", help: "Duration of one watch tick (lease, scan, write, hand-off of deliveries).", buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers }),
    scanDuration: new Histogram({ name: "vigil_watch_scan_duration_seconds", help: "Duration of one chain's scan inside a tick.", labelNames: ["chain"], buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers }),
    scanLag: new Gauge({ name: "vigil_watch_scan_lag_seconds", help: "Seconds past its due time of the most overdue watch leased by the last tick, per chain.", labelNames: ["chain"], registers }),
    deliveries: new Counter({ name: "vigil_webhook_deliveries_total", help: "Webhook delivery attempts by outcome.", labelNames: ["outcome"], registers }),
    deliveryDuration: new Histogram({ name: "vigil_webhook_delivery_duration_seconds", help: "Webhook delivery attempt latency by outcome.", labelNames: ["outcome"], buckets: seconds, registers }),
    reconcilerFindings: new Counter({ name: "vigil_reconciler_findings_total", help: "Pending payments examined by the reconciler, by finding.", labelNames: ["finding"], registers }),
    setOutboxProbe: (p) => void (probe = p),
    channelOps: new Counter({ name: "vigil_x402_channel_transactions_total", help: "x402 batch-settlement transactions by kind (deposit, claim, settle, refund; withdrawal: a payer's, seen on chain) and outcome.", labelNames: ["kind", "outcome"], registers }),
    setChannelProbe: (p) => void (channelProbe = p),
    render: () => registry.metrics(),
  };
  let channelProbe: (() => Promise<ChannelTotals>) | null = null;
  let lastChannelProbe: Promise<ChannelTotals | null> | null = null;
  // Every channel gauge comes from one query per scrape.
  const channelTotals = () => {
    if (!channelProbe) return Promise.resolve(null);
    lastChannelProbe ??= channelProbe()
      .catch(() => null)
      .finally(() => setTimeout(() => (lastChannelProbe = null), 0));
    return lastChannelProbe;
  };
  new Gauge({
    name: "vigil_x402_channels",
    help: "x402 batch-settlement channels: all of them, and the open ones.",
    labelNames: ["state"],
    registers,
    async collect() {
      const t = await channelTotals();
      if (!t) return;
      this.set({ state: "all" }, t.channels);
      this.set({ state: "open" }, t.open);
    },
  });
  new Gauge({
    name: "vigil_x402_channel_value_atomic",
    help: "Money of every x402 channel, atomic USDC: deposited through the service, the escrowed balance, charged by vouchers, claimed on chain, settled to the receiver, refunded, withdrawn by payers, forfeited (withdrawn before it was claimed), and charged but not yet claimed.",
    labelNames: ["total"],
    registers,
    async collect() {
      const t = await channelTotals();
      if (!t) return;
      for (const k of ["deposited", "balance", "charged", "claimed", "settled", "refunded", "withdrawn", "forfeited", "unclaimed"] as const) this.set({ total: k }, Number(t[k]));
    },
  });
  new Gauge({
    name: "vigil_webhook_outbox_depth",
    help: "Webhook events waiting for delivery.",
    registers,
    async collect() {
      const r = await probeOnce();
      if (r) this.set(r.depth);
    },
  });
  new Gauge({
    name: "vigil_webhook_outbox_oldest_age_seconds",
    help: "Age of the oldest webhook event waiting for delivery (0 when none).",
    registers,
    async collect() {
      const r = await probeOnce();
      if (r) this.set(r.oldestAgeSeconds);
    },
  });
  return metrics;
}

/** Maps a delivery error string (webhooks/deliver.ts) to its outcome label. */
export function deliveryOutcome(r: { ok: boolean; status?: number | undefined; error?: string | undefined }): DeliveryOutcomeLabel {
  if (r.ok) return "delivered";
  if (r.status !== undefined) return "http_error";
  const e = r.error ?? "";
  if (/SSRF_BLOCKED|body_too_large/.test(e)) return "refused";
  if (/timeout|abort/i.test(e)) return "timeout";
  return "network_error";
}

/**
 * Route label for a request path: the first route pattern of the table
 * that matches (`:param` segments match one segment), else `unmatched`, so
 * a scan of random paths cannot blow up the label set. The paths of the
 * patterns without parameters (with and without a trailing slash) are
 * labelled once, up front: the free GETs every client repeats are a map
 * lookup, not a test of every route's expression in turn (one per route, on
 * every request).
 */
export function routeLabeller(patterns: readonly string[]): (path: string) => string {
  const isParam = (seg: string) => seg.startsWith(":") || (seg.startsWith("{") && seg.endsWith("}"));
  const compiled = patterns.map((p) => ({
    p,
    re: new RegExp(`^${p.split("/").map((seg) => (isParam(seg) ? "[^/]+" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}/?$`),
  }));
  const scan = (path: string) => compiled.find((c) => c.re.test(path))?.p ?? "unmatched";
  const fixed = new Map<string, string>();
  for (const p of patterns) {
    if (p.split("/").some(isParam)) continue;
    for (const path of [p, `${p}/`]) if (!fixed.has(path)) fixed.set(path, scan(path));
  }
  return (path) => fixed.get(path) ?? scan(path);
}
