/**
 * What a product module is to the composition root. Each product folder has
 * one face (`index.ts`) whose factory takes the shared context and returns a
 * `ServiceModule`: the routes and tool-only entries it adds to the one table,
 * its background jobs, its health checks and what to close on shutdown.
 * `createApp` (app.ts) is the list of these factories; `workers.ts` runs
 * their jobs. A module that other modules build on adds its own face fields
 * (e.g. the watch module's deps, Checkout's scan subscribers).
 */
import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { Clock } from "./core/clock.js";
import type { Job } from "./core/jobs.js";
import type { Metrics } from "./core/metrics.js";
import type { DatabaseHandle } from "./db/connection.js";
import type { AnyRouteDef, TableEntry } from "./http/route-table.js";
import type { HealthCheck } from "./http/meta-routes.js";
import type { UpstreamClients } from "./upstream-clients.js";

/** What every module factory is given. */
export interface ModuleContext {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** Public base URL (set from the bound address once listening, unless PUBLIC_URL is given). */
  site: { baseUrl: string };
  /** The configured upstreams' clients, shared by every module that reads them. */
  upstreams: UpstreamClients;
}

export interface ServiceModule {
  name: string;
  /** HTTP routes, in the order they join the table. */
  routes?: readonly AnyRouteDef[];
  /** Tool-only entries (MCP tools without an HTTP route). */
  tools?: readonly TableEntry[];
  /** Background jobs a worker process runs for this module: new job objects per call (each runner keeps its own state). */
  jobs?(): Job[];
  /** Entries in /v1/health's upstream list. */
  healthChecks?: readonly HealthCheck[];
  /**
   * Work that makes a first request cost what later ones do (tables, JIT), run
   * once, a moment after the HTTP server listens: off the start-up path, and
   * never in a process without the API (`vigil worker` serves no requests).
   */
  warmUp?(): void;
  /** Called on shutdown, after the HTTP servers stopped, before the upstream clients and the database close. */
  close?(): Promise<void> | void;
}
