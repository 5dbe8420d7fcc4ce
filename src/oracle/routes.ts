/** The free catalogue of Penny Oracle questions. */
import { defineStandingRoute, type AnyRouteDef } from "../http/route-table.js";
import { OracleCatalogue, type OracleRegistry } from "./registry.js";

export function oracleRoutes(oracle: OracleRegistry): AnyRouteDef[] {
  return [
    defineStandingRoute({
      path: "/v1/q",
      operationId: "oracleCatalogue",
      summary: "Catalogue of every /v1/q/* question: inputs, allowed values, price and availability",
      tags: ["oracle"],
      output: OracleCatalogue,
      answer: () => oracle.catalogue(),
    }),
  ];
}
