/**
 * The `coll view` page's bundle (one script, one stylesheet). From the built package
 * it is dist/view/page.js and page.css next to this module (scripts/build-view.mjs
 * makes them during `npm run build`). Running from source (tsx, vitest), where dist/
 * may be absent or stale, it is built on the fly with esbuild into
 * node_modules/.cache/collectives-view/ and rebuilt whenever a file it was made from
 * has changed since.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CollectivesError } from '../core/errors.js';

export interface ViewAssets {
  /** The page's script (an IIFE; d3 and the views bundled in). */
  readonly js: string;
  readonly css: string;
}

/** Whether this module runs from the TypeScript sources (tsx, vitest) rather than dist/. */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');

let built: ViewAssets | undefined;

/** The page's bundle (see the module comment for where it comes from). */
export async function viewAssets(): Promise<ViewAssets> {
  if (FROM_SOURCE) return sourceAssets();
  if (built) return built;
  const js = fileURLToPath(new URL('./page.js', import.meta.url));
  const css = fileURLToPath(new URL('./page.css', import.meta.url));
  try {
    built = { js: readFileSync(js, 'utf8'), css: readFileSync(css, 'utf8') };
  } catch {
    throw new CollectivesError('IO', `the view page's bundle is missing (${js})`, 'rebuild the package with npm run build (it runs scripts/build-view.mjs)');
  }
  return built;
}

interface CacheStamp {
  /** Absolute path → "mtimeMs:size" of every file the bundle was made from. */
  readonly inputs: Record<string, string>;
}

type BuildView = (o: { outdir: string; minify: boolean }) => Promise<{ outdir: string; inputs: string[] }>;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the from-source bundle is cached. */
export const VIEW_CACHE = join(ROOT, 'node_modules', '.cache', 'collectives-view');

function stamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return 'missing';
  }
}

function cached(): ViewAssets | undefined {
  try {
    const st = JSON.parse(readFileSync(join(VIEW_CACHE, 'inputs.json'), 'utf8')) as CacheStamp;
    for (const [p, s] of Object.entries(st.inputs)) if (stamp(p) !== s) return undefined;
    return { js: readFileSync(join(VIEW_CACHE, 'page.js'), 'utf8'), css: readFileSync(join(VIEW_CACHE, 'page.css'), 'utf8') };
  } catch {
    return undefined;
  }
}

let building: Promise<ViewAssets> | undefined;

async function sourceAssets(): Promise<ViewAssets> {
  const hit = cached();
  if (hit) return hit;
  building ??= rebuild().finally(() => (building = undefined));
  return building;
}

/** Build into a private directory, then move the files into the cache (renames, so concurrent builders never leave half a file). */
async function rebuild(): Promise<ViewAssets> {
  mkdirSync(VIEW_CACHE, { recursive: true });
  const tmp = mkdtempSync(join(VIEW_CACHE, 'build-'));
  try {
    const script = join(ROOT, 'scripts', 'build-view.mjs');
    const { buildView } = (await import(pathToFileURL(script).href)) as { buildView: BuildView };
    const before = new Map<string, string>();
    const { inputs } = await buildView({ outdir: tmp, minify: false });
    for (const p of inputs) before.set(p, stamp(p));
    const assets = { js: readFileSync(join(tmp, 'page.js'), 'utf8'), css: readFileSync(join(tmp, 'page.css'), 'utf8') };
    const st: CacheStamp = { inputs: Object.fromEntries(before) };
    writeFileSync(join(tmp, 'inputs.json'), JSON.stringify(st));
    for (const f of ['page.js', 'page.css', 'inputs.json']) renameSync(join(tmp, f), join(VIEW_CACHE, f));
    return assets;
  } catch (e) {
    if (e instanceof Error && /Build failed/.test(e.message)) throw new CollectivesError('IO', `bundling the view page failed: ${e.message}`);
    throw e;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
