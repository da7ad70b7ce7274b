#!/usr/bin/env node
// Copies the non-TypeScript assets under src/ (JSON data such as measured machine
// files, the C source of the MPI side of `coll bench --compare`) into dist/ next to
// the compiled modules that read them. Not src/view/page/: the browser page, which
// scripts/build-view.mjs bundles into dist/view/.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');
const dist = join(root, 'dist');
const page = join(src, 'view', 'page');
let copied = 0;
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (p === page) continue;
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.json') || name.endsWith('.c')) {
      cpSync(p, join(dist, relative(src, p)));
      copied++;
    }
  }
}
walk(src);
console.log(`copied ${copied} asset(s) into dist/`);
