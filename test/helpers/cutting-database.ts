/**
 * A database handle that loses its connection at a chosen step, for tests of
 * what survives a cut (no timing luck: the step is named, not raced). It
 * wraps the real Kysely handle; every query still runs on the real database.
 *
 * - `failWritesTo(table, n)`: the next `n` UPDATEs of `table` fail as a
 *   terminated connection does (57P01) before they reach the database. Inside
 *   a transaction that is the transaction cut before its commit: nothing of it
 *   lands. Outside, the statement simply did not happen.
 * - `loseNextCommitAnswer(table)`: the next transaction that wrote `table`
 *   commits, and then its caller gets the same error, as when the connection
 *   dies after the server committed but before the answer came back.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { AliasNode, TableNode, UpdateQueryNode } from "kysely";
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely";
import type { Database } from "../../src/db/types.js";

/** What pg raises when pg_terminate_backend ends the connection (isDatabaseUnavailable knows it). */
export function connectionCut(): Error {
  return Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01", severity: "FATAL" });
}

function updatedTable(node: RootOperationNode): string | undefined {
  if (!UpdateQueryNode.is(node) || !node.table) return undefined;
  const t = node.table;
  if (TableNode.is(t)) return t.table.identifier.name;
  if (AliasNode.is(t) && TableNode.is(t.node)) return t.node.table.identifier.name;
  return undefined;
}

export interface CuttingDatabase {
  /** The handle to give the app. */
  db: Database;
  failWritesTo(table: string, n?: number): void;
  loseNextCommitAnswer(table: string): void;
  /** Armed cuts that have not happened yet (a test checks it used them all). */
  readonly armed: number;
}

export function cuttingDatabase(real: Database): CuttingDatabase {
  const failing = new Map<string, number>();
  let losing: string | undefined;
  const tx = new AsyncLocalStorage<{ wrote: Set<string> }>();

  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      const table = updatedTable(args.node);
      if (table) {
        tx.getStore()?.wrote.add(table);
        const left = failing.get(table) ?? 0;
        if (left > 0) {
          failing.set(table, left - 1);
          throw connectionCut();
        }
      }
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };
  const inner = real.withPlugin(plugin);

  const wrapBuilder = (builder: ReturnType<Database["transaction"]>): ReturnType<Database["transaction"]> =>
    new Proxy(builder, {
      get(target, prop) {
        if (prop === "execute") {
          return async (callback: Parameters<typeof target.execute>[0]) => {
            const store = { wrote: new Set<string>() };
            const result = await tx.run(store, () => target.execute(callback));
            if (losing && store.wrote.has(losing)) {
              losing = undefined;
              throw connectionCut();
            }
            return result;
          };
        }
        const v = Reflect.get(target, prop, target);
        if (typeof v !== "function") return v;
        // setIsolationLevel / setAccessMode return new builders: keep them wrapped.
        return (...a: unknown[]) => {
          const out = v.apply(target, a);
          return out && typeof out === "object" && "execute" in out ? wrapBuilder(out) : out;
        };
      },
    });

  const db = new Proxy(inner, {
    get(target, prop) {
      if (prop === "transaction") return () => wrapBuilder(target.transaction());
      const v = Reflect.get(target, prop, target);
      // Kysely keeps its state in private fields: methods run on the real object.
      return typeof v === "function" ? v.bind(target) : v;
    },
  });

  return {
    db,
    failWritesTo(table, n = 1) {
      failing.set(table, (failing.get(table) ?? 0) + n);
    },
    loseNextCommitAnswer(table) {
      losing = table;
    },
    get armed() {
      return [...failing.values()].reduce((a, n) => a + n, 0) + (losing ? 1 : 0);
    },
  };
}
