/**
 * The face of the notice boards: their routes (the boards named by BOARDS)
 * and the hourly purge of expired notices.
 */
import type { ModuleContext, ServiceModule } from "../module.js";
import { boardRoutes } from "./routes.js";
import { boardCatalogue } from "./boards.js";
import { boardPurgeJob } from "./purge.js";

export function createBoardModule(ctx: ModuleContext): ServiceModule {
  const { clock } = ctx;
  return {
    name: "board",
    routes: boardRoutes({ clock, boards: boardCatalogue(ctx.config.BOARDS) }),
    jobs: () => [boardPurgeJob({ db: ctx.database.db, clock })],
  };
}
