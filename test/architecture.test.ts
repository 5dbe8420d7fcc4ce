/**
 * The direction of imports (docs/architecture.md), checked on the source
 * text: every static import, re-export and dynamic import() of every file
 * under src/ and under devnet/ (the simulators, beside the product). A
 * module that is not in LAYERS fails the test, so a new module must say
 * where it sits before it can land.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../src");
const DEVNET = path.resolve(import.meta.dirname, "../devnet");

/**
 * Module (first path segment under src/, or a root file) → the modules it may
 * import. Lower layers first; product modules never import each other's
 * insides (they call exported service functions, listed here when they do).
 */
const LAYERS: Record<string, readonly string[]> = {
  core: [],
  db: ["core"],
  chains: ["core"],
  x402: ["core", "db"],
  webhooks: ["core"],
  http: ["core", "db", "x402"],
  // Ethereum ingestion: the jobs that fill the tables and the stores that read them back, for oracle and feeds alike.
  ingest: ["core", "db", "chains", "module.ts"],
  oracle: ["core", "db", "http", "chains", "ingest", "module.ts"],
  watch: ["core", "db", "http", "x402", "chains", "webhooks", "module.ts"],
  checkout: ["core", "db", "http", "x402", "chains", "webhooks", "watch", "module.ts"],
  // oracle: the Zcash pools feed extends the oracle's published pools answer.
  feeds: ["core", "db", "http", "x402", "chains", "ingest", "oracle", "module.ts"],
  board: ["core", "db", "http", "x402", "module.ts"],
  relay: ["core", "db", "http", "x402", "chains", "module.ts"],
  mcp: ["core", "db", "http", "x402"],
  // An operator's check of a configuration: reads every layer's clients as the composition root builds them.
  doctor: ["core", "db", "chains", "x402", "relay", "config.ts"],
  // Root files below the composition roots.
  "config.ts": ["core"],
  "version.ts": [],
  "upstream-sources.ts": ["config.ts"],
  "node-networks.ts": ["core", "chains", "config.ts"],
  // The shared clients of the configured upstreams, and what a module is to the composition root.
  "upstream-clients.ts": ["core", "chains", "http", "config.ts"],
  "module.ts": ["core", "db", "http", "config.ts", "upstream-clients.ts"],
  // Composition roots.
  "startup.ts": ["*"],
  "app.ts": ["*"],
  "workers.ts": ["*"],
  "banner.ts": ["*"],
  "cli.ts": ["*"],
};

/** Only the CLI (with its start-up steps) may start the devnet; everything else gets its settings as configuration. */
const MAY_IMPORT_DEVNET = new Set(["cli.ts", "startup.ts"]);
/** What devnet/ may import of src/: the simulators speak the chains' wire formats with the chains' own codecs. */
const DEVNET_MAY_IMPORT = ["core", "chains", "x402", "config.ts"];
/** Product modules: the chains must not know them. */
const PRODUCTS = ["watch", "checkout", "oracle", "feeds", "board", "relay", "mcp", "http", "webhooks", "ingest"];
/** Modules with a face (`index.ts`): any other file reaches them only through it. */
const FACED = ["watch", "checkout", "oracle", "feeds", "board", "relay", "mcp", "ingest"];
/**
 * The imports that pass a face, each with its reason: `vigil mcp` loads the stdio transport alone, so the
 * MCP handshake does not wait for the app's module graph (docs/mcp.md).
 */
const PAST_A_FACE = new Set(["cli.ts → ./mcp/stdio.js"]);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith(".ts") ? [p] : [];
  });
}

const isUnder = (dir: string, file: string) => !path.relative(dir, file).startsWith("..");

/** The module of a file: "devnet" for one under devnet/, else its first path segment under src/ (a root file's name). */
function moduleOf(file: string): string {
  if (isUnder(DEVNET, file)) return "devnet";
  return path.relative(SRC, file).split(path.sep)[0];
}

/** Relative specifiers imported by a file (static, re-export, dynamic). */
function importsOf(text: string): string[] {
  const specs: string[] = [];
  const re = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm;
  for (const m of text.matchAll(re)) specs.push(m[1] ?? m[2] ?? m[3]);
  return specs.filter((s) => s.startsWith("."));
}

interface Edge {
  /** The importing file, relative to its tree (src/ or devnet/). */
  from: string;
  fromModule: string;
  /** The imported file (absolute, .ts). */
  to: string;
  toModule: string;
  spec: string;
}

function edgesOf(tree: string): Edge[] {
  return sourceFiles(tree).flatMap((file) =>
    importsOf(fs.readFileSync(file, "utf8")).map((spec) => {
      const to = path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts");
      return { from: path.relative(tree, file), fromModule: moduleOf(file), to, toModule: moduleOf(to), spec };
    }),
  );
}

const edges = edgesOf(SRC);
const devnetEdges = edgesOf(DEVNET);

/** The cycles of a directed graph, each as "a → b → … → a". */
function cyclesOf(graph: Map<string, Set<string>>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (m: string, trail: string[]) => {
    if (state.get(m) === "done") return;
    if (state.get(m) === "open") {
      cycles.push([...trail.slice(trail.indexOf(m)), m].join(" → "));
      return;
    }
    state.set(m, "open");
    for (const n of graph.get(m) ?? []) visit(n, [...trail, m]);
    state.set(m, "done");
  };
  for (const m of graph.keys()) visit(m, []);
  return cycles;
}

function graphOf(pairs: [string, string][]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of pairs) {
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  return graph;
}

describe("architecture: the direction of imports", () => {
  it("finds the imports it checks (the parser works)", () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(edges.some((e) => e.from === "app.ts" && e.toModule === "watch")).toBe(true);
    expect(edges.some((e) => e.from === "startup.ts" && e.toModule === "devnet")).toBe(true);
    expect(devnetEdges.some((e) => e.from === "index.ts" && e.toModule === "config.ts")).toBe(true);
    expect(importsOf(`import { a } from "./x.js";\nexport { b } from "../y.js";\nconst m = await import("./z.js");`)).toEqual([
      "./x.js",
      "../y.js",
      "./z.js",
    ]);
  });

  it("every module is placed in a layer", () => {
    const unplaced = [...new Set(edges.map((e) => e.fromModule))].filter((m) => !(m in LAYERS));
    expect(unplaced, "add the module to LAYERS here and to docs/architecture.md").toEqual([]);
  });

  it("imports only point down", () => {
    const wrong = edges
      .filter((e) => e.toModule !== e.fromModule)
      .filter((e) => {
        const allowed = LAYERS[e.fromModule] ?? [];
        return !allowed.includes("*") && !allowed.includes(e.toModule);
      })
      .map((e) => `${e.from} → ${e.spec}`);
    expect(wrong).toEqual([]);
  });

  it("chains/ imports no product module", () => {
    const wrong = edges.filter((e) => e.fromModule === "chains" && PRODUCTS.includes(e.toModule)).map((e) => `${e.from} → ${e.spec}`);
    expect(wrong).toEqual([]);
  });

  it("production code reaches devnet/ only through cli.ts", () => {
    const wrong = edges
      .filter((e) => e.toModule === "devnet" && !MAY_IMPORT_DEVNET.has(e.fromModule))
      .map((e) => `${e.from} → ${e.spec}`);
    expect(wrong).toEqual([]);
  });

  it("other files reach a product module only through its face (index.ts)", () => {
    const wrong = edges
      .filter((e) => e.toModule !== e.fromModule && FACED.includes(e.toModule))
      .filter((e) => path.basename(e.spec) !== "index.js" || path.dirname(path.resolve(SRC, path.dirname(e.from), e.spec)) !== path.join(SRC, e.toModule))
      .map((e) => `${e.from} → ${e.spec}`)
      .filter((e) => !PAST_A_FACE.has(e));
    expect(wrong).toEqual([]);
    for (const m of FACED) expect(fs.existsSync(path.join(SRC, m, "index.ts")), `${m}/index.ts`).toBe(true);
  });

  it("devnet/ imports of src/ only reach the codecs and settings the simulators speak with", () => {
    const wrong = devnetEdges
      .filter((e) => e.toModule !== "devnet" && !DEVNET_MAY_IMPORT.includes(e.toModule))
      .map((e) => `devnet/${e.from} → ${e.spec}`);
    expect(wrong).toEqual([]);
  });

  it("the modules form no import cycle", () => {
    const pairs = [...edges, ...devnetEdges].filter((e) => e.toModule !== e.fromModule).map((e): [string, string] => [e.fromModule, e.toModule]);
    expect(cyclesOf(graphOf(pairs))).toEqual([]);
  });

  it("the files of devnet/ form no import circle", () => {
    const pairs = devnetEdges.filter((e) => e.toModule === "devnet").map((e): [string, string] => [e.from, path.relative(DEVNET, e.to)]);
    expect(pairs.length).toBeGreaterThan(50);
    expect(cyclesOf(graphOf(pairs))).toEqual([]);
  });
});
