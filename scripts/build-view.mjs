#!/usr/bin/env node
// Bundles the `coll view` page (src/view/page/main.ts, browser code, and the CSS it
// imports, d3 included) with esbuild into dist/view/page.js and dist/view/page.css,
// minified and self-contained, so the page works offline. `npm run build` runs it
// after tsc; src/view/assets.ts imports buildView() to build into a cache directory
// when the CLI runs from source.
import { build } from 'esbuild';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { join, relative } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The page's entry point. */
export const VIEW_ENTRY = join(root, 'src', 'view', 'page', 'main.ts');

/**
 * Bundle the page into `outdir` (page.js and page.css). Resolves to the source files
 * the bundle was made from (absolute paths), for the caller's staleness check.
 * @param {{ outdir?: string, minify?: boolean }} [o]
 * @returns {Promise<{ outdir: string, inputs: string[] }>}
 */
export async function buildView(o = {}) {
  const outdir = o.outdir ?? join(root, 'dist', 'view');
  const result = await build({
    entryPoints: { page: VIEW_ENTRY },
    outdir,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2022', 'chrome109', 'firefox115', 'safari16'],
    minify: o.minify ?? true,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
    tsconfig: join(root, 'src', 'view', 'page', 'tsconfig.json'),
  });
  const inputs = Object.keys(result.metafile.inputs).map((p) => join(root, p));
  return { outdir, inputs };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now();
  const { outdir } = await buildView();
  const rel = relative(root, outdir) || '.';
  console.log(`bundled the view page into ${rel}/page.js and page.css (${Date.now() - started} ms)`);
}
