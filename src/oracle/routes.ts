/** The free catalogue of Penny Oracle questions. */
import { z } from "zod";
import { defineRoute, type RouteDef } from "../http/route-table.js";
import type { OracleRegistry } from "./registry.js";

export function oracleRoutes(oracle: OracleRegistry): RouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/q",
      operationId: "oracleCatalogue",
      summary: "Catalogue of every /v1/q/* question: inputs, allowed values, price and availability",
      tags: ["oracle"],
      input: z.object({}).strict(),
      output: z.object({ questions: z.array(z.object({ path: z.string() }).passthrough()) }).passthrough(),
      handler: async () => oracle.catalogue() as { questions: { path: string }[] },
    }),
  ];
}
