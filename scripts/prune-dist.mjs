#!/usr/bin/env node
// Deletes from the build output the compiled files (.js, .js.map) of sources that no longer exist, then the folders
// left empty; `npm start` runs it before `tsc -b`, which compiles only what changed but never deletes any output (a
// moved migration would stay in dist/ beside its new copy: "Duplicate migrations" at start-up).
//
//   node scripts/prune-dist.mjs [outDir=dist] [rootDir=src]

import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const [outDir = 'dist', rootDir = 'src'] = process.argv.slice(2);
const COMPILED = /\.js(\.map)?$/;

if (existsSync(outDir)) {
  const entries = readdirSync(outDir, { recursive: true, withFileTypes: true });
  for (const entry of entries.filter((e) => e.isFile() && COMPILED.test(e.name))) {
    const output = join(entry.parentPath, entry.name);
    if (!existsSync(join(rootDir, relative(outDir, output)).replace(COMPILED, '.ts'))) rmSync(output);
  }
  const folders = entries.filter((e) => e.isDirectory()).map((e) => join(e.parentPath, e.name));
  // Deepest first, so that a folder whose subfolders were all emptied goes too.
  for (const folder of folders.sort((a, b) => b.length - a.length)) {
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  }
}
