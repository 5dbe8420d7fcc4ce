/**
 * Generated sections inside hand-written modules. A section is the lines
 * strictly between
 *
 *   // BEGIN GENERATED <name> (<generator>): edit the generator, not this section
 *   // END GENERATED <name>
 *
 * and must equal, byte for byte, what its generator prints; the test suite
 * compares them, so unrolled code can be reviewed as the short script that
 * wrote it. A generator module exports its sections and, only when run
 * directly, prints them (or rewrites them with --write, or compares with --check).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface GeneratedSection {
  /** Target module, relative to src/chains/monero/ (e.g. "keccak.ts"). */
  file: string;
  /** Names the section in its markers; unique within the file. */
  name: string;
  /** The section's lines, each ending in "\n". */
  text: string;
}

/** src/chains/monero/, where the targets live. */
export const MONERO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const beginPrefix = (name: string): string => `// BEGIN GENERATED ${name} (`;
const beginLine = (name: string, generator: string): string => `${beginPrefix(name)}${generator}): edit the generator, not this section\n`;
const endLine = (name: string): string => `// END GENERATED ${name}\n`;

/** The section's text as committed in `source`; null when its markers are missing or out of order. */
export function readSection(source: string, name: string): string | null {
  const b = source.indexOf(beginPrefix(name));
  if (b < 0 || (b > 0 && source[b - 1] !== "\n")) return null;
  const bodyStart = source.indexOf("\n", b) + 1;
  const e = source.indexOf(endLine(name), bodyStart);
  if (bodyStart === 0 || e < 0 || source[e - 1] !== "\n") return null;
  return source.slice(bodyStart, e);
}

/** `source` with the section's body replaced (markers kept); throws when the markers are missing. */
export function replaceSection(source: string, section: GeneratedSection, generator: string): string {
  const current = readSection(source, section.name);
  if (current === null) throw new Error(`${section.file}: no generated section "${section.name}"`);
  const begin = source.indexOf(beginPrefix(section.name));
  const bodyStart = source.indexOf("\n", begin) + 1;
  return source.slice(0, begin) + beginLine(section.name, generator) + section.text + source.slice(bodyStart + current.length);
}

/**
 * Command line of a generator, run only when `moduleUrl` is the entry script:
 * prints the sections; --write puts them into their files; --check exits 1
 * when a committed section differs from what the generator prints.
 */
export function runWhenMain(moduleUrl: string, sections: () => GeneratedSection[]): void {
  const entry = process.argv[1];
  if (!entry || pathToFileURL(path.resolve(entry)).href !== moduleUrl) return;
  const generator = `tools/${path.basename(fileURLToPath(moduleUrl))}`;
  const mode = process.argv[2] ?? "--print";
  if (!["--print", "--write", "--check"].includes(mode)) {
    process.stderr.write(`usage: npx tsx src/chains/monero/${generator} [--write | --check]\n`);
    process.exitCode = 2;
    return;
  }
  let stale = 0;
  for (const s of sections()) {
    const file = path.join(MONERO_DIR, s.file);
    if (mode === "--print") {
      process.stdout.write(beginLine(s.name, generator) + s.text + endLine(s.name));
      continue;
    }
    const source = fs.readFileSync(file, "utf8");
    const same = readSection(source, s.name) === s.text;
    if (mode === "--write" && !same) fs.writeFileSync(file, replaceSection(source, s, generator));
    if (mode === "--check" && !same) stale++;
    process.stdout.write(`${s.file} [${s.name}]: ${same ? "up to date" : mode === "--write" ? "rewritten" : "differs from the generator"}\n`);
  }
  if (stale > 0) process.exitCode = 1;
}
