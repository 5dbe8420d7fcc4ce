#!/usr/bin/env node
/**
 * Compiles the product (src/) and the devnet's simulators (devnet/) to
 * JavaScript in dist/ (one .js per .ts, same folders, the migrations and the
 * lightwalletd .proto copied beside them, the hosted pay page of web/
 * copied too), so the service starts without compiling TypeScript on every
 * boot.
 *
 * esbuild transpiles only (about a second for the whole tree, a few more for the bundle); types are
 * checked by `npm run typecheck`. dist/ mirrors the root one level down
 * (dist/src, dist/devnet, dist/web), so the imports between src/ and devnet/
 * and the paths a module reads relative to itself (../../web/pay,
 * ./migrations) resolve the same from both.
 *
 * Besides that tree, the CLI and everything it imports are bundled into
 * dist/bundle (one file per entry plus shared chunks for the lazily loaded
 * parts): Node then loads a few dozen files instead of two thousand, which
 * is most of a process's start-up (bench:startup). The packages that read
 * files beside their own modules or load native code stay outside the
 * bundle (BUNDLE_EXTERNAL). A source that computes a path from
 * `import.meta.url` gets the URL of its own compiled file in the tree above,
 * so migrations, the .proto, the pay page and the scan threads' worker file
 * resolve as they do unbundled.
 *
 * `node bin/build.mjs` builds when a source is newer than the last build;
 * `--force` always builds. `npx vigil` calls ensureBuilt() first, so a
 * fresh clone or an edited source tree never runs stale code. A lock file
 * keeps two processes (CI's two test passes, say) from writing dist/ at once.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The trees dist/ mirrors: their .ts files compiled, every other file copied. */
const SOURCE_TREES = ["src", "devnet", "web"].map((d) => path.join(root, d));
const srcDir = path.join(root, "src");
const distDir = path.join(root, "dist");
const stampFile = path.join(distDir, ".build-stamp");
const lockFile = path.join(root, ".dist.lock");

/** Every file of the source trees, with the newest modification time among them and the trees' shape. */
function scanSources() {
  const files = [];
  let newest = 0;
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        files.push(p);
        newest = Math.max(newest, fs.statSync(p).mtimeMs);
      }
    }
  };
  for (const tree of SOURCE_TREES) if (fs.existsSync(tree)) walk(tree);
  return { files, newest, shape: files.map((f) => path.relative(root, f)).sort().join("\n") };
}

/** Why dist/ needs building, or null when it is up to date. */
function staleReason(sources) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile, "utf8"));
  } catch {
    return "no build yet";
  }
  if (sources.newest > stamp.newest) return "sources changed";
  // A deleted or renamed file leaves every mtime as old as before.
  if (sources.shape !== stamp.shape) return "files added or removed";
  return null;
}

async function compile(sources) {
  const esbuild = await import("esbuild");
  const tmp = `${distDir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const ts = sources.files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  await esbuild.build({
    entryPoints: ts,
    outdir: tmp,
    outbase: root,
    bundle: false,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    logLevel: "error",
  });
  await bundleCli(tmp);
  for (const f of sources.files.filter((f) => !f.endsWith(".ts"))) {
    const to = path.join(tmp, path.relative(root, f));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(f, to);
  }
  fs.writeFileSync(path.join(tmp, ".build-stamp"), JSON.stringify({ newest: sources.newest, shape: sources.shape, builtAt: new Date().toISOString() }));
  fs.writeFileSync(path.join(tmp, "package.json"), '{"type":"module"}\n');
  // Swap in whole: a reader sees the old tree or the new one, never half of one.
  const old = `${distDir}.old-${process.pid}`;
  if (fs.existsSync(distDir)) fs.renameSync(distDir, old);
  fs.renameSync(tmp, distDir);
  fs.rmSync(old, { recursive: true, force: true });
  return ts.length;
}

/**
 * Kept out of the bundle: PGlite (its WebAssembly and data files sit beside its
 * modules), pg (an optional native binding), gRPC and protobufjs (the .proto
 * loader's dynamic requires), pino (its transports run files in worker threads).
 */
const BUNDLE_EXTERNAL = ["@electric-sql/pglite", "pg", "pg-native", "secp256k1", "@grpc/*", "protobufjs", "pino", "pino-*", "thread-stream", "esbuild", "tsx"];

/** An `import.meta.url` in a source becomes its compiled file's URL in the tree, written relative to the bundle. */
function fileUrlsPlugin(tree) {
  return {
    name: "vigil-file-urls",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!SOURCE_TREES.some((t) => args.path.startsWith(t + path.sep))) return undefined;
        let text = await fs.promises.readFile(args.path, "utf8");
        if (text.includes("import.meta.url")) {
          const compiled = path.join(tree, path.relative(root, args.path)).replace(/\.ts$/, ".js");
          const rel = path.relative(path.join(tree, "bundle"), compiled).split(path.sep).join("/");
          text = text.replaceAll("import.meta.url", `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
        }
        return { contents: text, loader: "ts" };
      });
    },
  };
}

async function bundleCli(tree) {
  const esbuild = await import("esbuild");
  await esbuild.build({
    entryPoints: { cli: path.join(srcDir, "cli.ts") },
    outdir: path.join(tree, "bundle"),
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: BUNDLE_EXTERNAL,
    // CommonJS packages inside an ES module bundle call require(): give them Node's.
    banner: { js: 'import { createRequire as __vigilCreateRequire } from "node:module"; const require = __vigilCreateRequire(import.meta.url);' },
    plugins: [fileUrlsPlugin(tree)],
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "error",
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/** Takes the build lock, waiting for another builder (and clearing a dead one's lock). */
async function withLock(fn) {
  for (let waited = 0; ; waited += 100) {
    try {
      const fd = fs.openSync(lockFile, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      const holder = Number(fs.readFileSync(lockFile, "utf8") || "0");
      if (holder && !alive(holder)) fs.rmSync(lockFile, { force: true });
      else if (waited > 120_000) throw new Error(`bin/build.mjs: ${lockFile} held by pid ${holder} for two minutes`);
      else await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lockFile, { force: true });
  }
}

/**
 * Builds dist/ when it is missing or older than its sources (or always with force).
 * Returns what it did, for the caller's log. Without src/ (a deployment that
 * ships dist/ alone) there is nothing to compare, and dist/ is used as it is.
 */
export async function ensureBuilt({ force = false, quiet = false } = {}) {
  if (!fs.existsSync(srcDir)) return { built: false, reason: "no sources" };
  const first = scanSources();
  if (!force && !staleReason(first)) return { built: false, reason: "up to date" };
  return withLock(async () => {
    // Another process may have built while this one waited for the lock.
    const sources = scanSources();
    const reason = force ? "forced" : staleReason(sources);
    if (!reason) return { built: false, reason: "built by another process" };
    const t0 = performance.now();
    const n = await compile(sources);
    const ms = Math.round(performance.now() - t0);
    if (!quiet) process.stderr.write(`vigil: compiled ${n} TypeScript files to dist/ in ${ms} ms (${reason})\n`);
    return { built: true, reason, files: n, ms };
  });
}

/** The bundled CLI that bin/vigil.mjs runs. */
export const DIST_CLI = path.join(distDir, "bundle", "cli.js");

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = await ensureBuilt({ force: process.argv.includes("--force") });
  if (!r.built) process.stderr.write(`vigil: dist/ is ${r.reason}\n`);
}
