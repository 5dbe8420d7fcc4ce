/**
 * Hono's trie router, with the match of each fixed path kept.
 *
 * Hono's RegExpRouter cannot take the route table (`/v1/board/:board/feed.xml`
 * beside the board's fixed paths), so Hono falls back to its trie router, which
 * walks the path segment by segment on every request. The paths clients repeat
 * most are fixed (`/v1/q`, `/v1/paywall`, `/v1/health`): their match depends on
 * the method and the path only, so it is made once per method and path and kept.
 * Only paths registered without parameters or wildcards are kept, so the kept
 * matches are bounded by the route table, whatever paths clients send.
 */
import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

export class FixedPathRouter<T> implements Router<T> {
  readonly name = "FixedPathRouter(TrieRouter)";
  readonly #trie = new TrieRouter<T>();
  readonly #fixed = new Set<string>();
  readonly #kept = new Map<string, Result<T>>();

  add(method: string, path: string, handler: T): void {
    this.#trie.add(method, path, handler);
    if (!/[:*{]/.test(path)) this.#fixed.add(path);
    // A route added later can change any match already made.
    this.#kept.clear();
  }

  match(method: string, path: string): Result<T> {
    if (!this.#fixed.has(path)) return this.#trie.match(method, path);
    const key = `${method} ${path}`;
    let result = this.#kept.get(key);
    if (result === undefined) {
      result = this.#trie.match(method, path);
      this.#kept.set(key, result);
    }
    return result;
  }
}
