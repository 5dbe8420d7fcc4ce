/**
 * Storage of the key material a chain scanner derives from a watch's view key
 * (for Zcash: chains/zcash/key-material.ts), so a restarted worker loads it
 * instead of deriving it again. It is as secret as the view key and sealed
 * the same way: AES-256-GCM under the master key (SecretBox), with the watch
 * id bound in as associated data ("keymaterial:<id>", distinct from the view
 * key's "viewkey:<id>"), in its own table (migration 0018) that the lease
 * query never reads. Opened for one scanner call only; never logged.
 * A row that does not open (another MASTER_KEY, a damaged row) is skipped:
 * the scanner derives from the view key and the row is written anew.
 */
import type { KeyMaterialStore } from "../chains/scanner.js";
import type { SecretBox } from "../core/secretbox.js";
import type { Database, Queryable } from "../db/types.js";
import { SQL_ROWS_PER_STATEMENT } from "./model.js";

const aad = (watchId: string): string => `keymaterial:${watchId}`;

export function sealKeyMaterial(box: SecretBox, watchId: string, material: string): Buffer {
  return box.seal(material, aad(watchId));
}

/** The store a tick hands its scanner: reads and opens the rows of the watches asked for. */
export function keyMaterialStore(db: Database, box: SecretBox, onError?: (watchId: string) => void): KeyMaterialStore {
  return {
    async load(watchIds) {
      const out = new Map<string, string>();
      for (let i = 0; i < watchIds.length; i += SQL_ROWS_PER_STATEMENT) {
        const rows = await db
          .selectFrom("watch_key_material")
          .select(["watch_id", "material_enc"])
          .where("watch_id", "in", watchIds.slice(i, i + SQL_ROWS_PER_STATEMENT))
          .execute();
        for (const r of rows) {
          try {
            out.set(r.watch_id, box.open(r.material_enc, aad(r.watch_id)));
          } catch {
            onError?.(r.watch_id);
          }
        }
      }
      return out;
    },
  };
}

/** Inserts or replaces sealed material rows (the caller holds the watches' rows). */
export async function writeKeyMaterial(db: Queryable, rows: readonly { watchId: string; sealed: Uint8Array }[]): Promise<void> {
  for (let i = 0; i < rows.length; i += SQL_ROWS_PER_STATEMENT) {
    await db
      .insertInto("watch_key_material")
      .values(rows.slice(i, i + SQL_ROWS_PER_STATEMENT).map((r) => ({ watch_id: r.watchId, material_enc: Buffer.from(r.sealed) })))
      .onConflict((oc) => oc.column("watch_id").doUpdateSet((eb) => ({ material_enc: eb.ref("excluded.material_enc"), updated_at: new Date() })))
      .execute();
  }
}
