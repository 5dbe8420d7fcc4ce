#!/usr/bin/env node
// Runs the compiled CLI (dist/bundle/cli.js), compiling src/ and devnet/ first when dist/ is missing
// or older than the sources (bin/build.mjs: a few seconds), so `npx vigil …` never runs stale code.
import { pathToFileURL } from "node:url";
import { ensureBuilt, DIST_CLI } from "./build.mjs";

process.setSourceMapsEnabled(true);
await ensureBuilt();
await import(pathToFileURL(DIST_CLI).href);
