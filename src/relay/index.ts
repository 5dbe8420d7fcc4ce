/**
 * The face of the private relay and transaction inspection: the configured
 * builder endpoints (PRIVATE_RELAY_BUILDERS) and the Ethereum node, which is
 * only read (chain, nonce, known hashes).
 */
import type { ModuleContext, ServiceModule } from "../module.js";
import { relayRoutes } from "./routes.js";
import { BuilderClient, parsePrivateBuilders } from "./builders.js";

export { parsePrivateBuilders } from "./builders.js";

export function createRelayModule(ctx: ModuleContext): ServiceModule {
  const { config } = ctx;
  const builders = parsePrivateBuilders(config.PRIVATE_RELAY_BUILDERS).map((b) => new BuilderClient(b, { signingKey: config.PRIVATE_RELAY_SIGNING_KEY }));
  return {
    name: "relay",
    routes: relayRoutes({ rpc: ctx.upstreams.ethRpc, clock: ctx.clock, builders, targetBlocks: config.PRIVATE_RELAY_TARGET_BLOCKS, signed: Boolean(config.PRIVATE_RELAY_SIGNING_KEY) }),
    close: async () => {
      await Promise.all(builders.map((b) => b.close()));
    },
  };
}
