#!/usr/bin/env node
// Loads the TypeScript CLI through tsx's loader so `npx vigil …` needs no build step.
import { register } from "tsx/esm/api";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

register();
const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "cli.ts");
await import(pathToFileURL(cli).href);
