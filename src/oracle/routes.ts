/** The free catalogue of Penny Oracle questions. */
import { z } from "zod";
import { defineRoute, type AnyRouteDef } from "../http/route-table.js";
import { OracleCatalogue, type OracleRegistry } from "./registry.js";

export function oracleRoutes(oracle: OracleRegistry): AnyRouteDef[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/q",
      operationId: "oracleCatalogue",
      summary: "Catalogue of every /v1/q/* question: inputs, allowed values, price and availability",
      tags: ["oracle"],
      input: z.object({}).strict(),
      output: OracleCatalogue,
      handler: async () => oracle.catalogue(),
    }),
  ];
}
