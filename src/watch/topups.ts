/**
 * The USDC top-up offers, declared once: the top-up routes are built from
 * this list, and the paths a new watch is told about (`topupEndpoints`) and
 * the info guide's `topups` follow from those routes.
 */
import { usdCents } from "../core/money.js";

/** A top-up of a fixed amount: the price paid is the credit added. */
export interface FixedTopupOffer {
  path: string;
  operationId: string;
  cents: number;
  /** Idle days the amount buys, for the summary. */
  idleDays: number;
  mcpTool?: string;
}

export const FIXED_TOPUPS: readonly FixedTopupOffer[] = [
  { path: "/v1/private/topup", operationId: "privateTopup", cents: 10, idleDays: 5, mcpTool: "service_private_watch_topup" },
  { path: "/v1/private/topup-1", operationId: "privateTopup1", cents: 100, idleDays: 50 },
  { path: "/v1/private/topup-5", operationId: "privateTopup5", cents: 500, idleDays: 250 },
];

/** The top-up of a chosen amount, priced from its input. */
export const CUSTOM_TOPUP_PATH = "/v1/private/topup-custom";
export const CUSTOM_TOPUP_MIN = usdCents(10);
export const CUSTOM_TOPUP_MAX = usdCents(2500);

/** Every top-up path, in the order the guide lists them. */
export const TOPUP_PATHS: readonly string[] = [...FIXED_TOPUPS.map((t) => t.path), CUSTOM_TOPUP_PATH];
