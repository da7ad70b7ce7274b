/** Finding tsx, the TypeScript loader, and starting threads that load TypeScript through it. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { ArgumentError } from '../core/errors.js';

/**
 * tsx, to run TypeScript: `--import` for node processes, its register() API for rank
 * threads. An optional peer dependency: JavaScript programs run from dist/ need no loader.
 */
export function tsxLoader(program: string): { process: string; worker: string } {
  try {
    return resolveTsx();
  } catch {
    throw new ArgumentError(
      `program '${program}' is TypeScript, and running TypeScript needs tsx, which is not installed`,
      'npm install tsx (next to collectives), or compile the program to JavaScript',
    );
  }
}

function resolveTsx(): { process: string; worker: string } {
  const meta = import.meta as ImportMeta & { resolve?: (s: string) => string };
  if (typeof meta.resolve === 'function') return { process: meta.resolve('tsx'), worker: meta.resolve('tsx/esm/api') };
  // Hosts without import.meta.resolve (vitest): read tsx's export map.
  const pkgPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, string | { import: { default: string } }> };
  const at = (p: string): string => pathToFileURL(resolvePath(dirname(pkgPath), p)).href;
  const api = pkg.exports['./esm/api'];
  return { process: at(pkg.exports['.'] as string), worker: at(typeof api === 'string' ? api : api.import.default) };
}


/**
 * A worker thread running `url`. Workers do not inherit --import loaders: with
 * `workerLoader` (tsx's register API, JobSpec.workerLoader) the thread installs it first.
 */
export function startWorker(url: URL, workerLoader: string | undefined, options: WorkerOptions): Worker {
  if (workerLoader === undefined) return new Worker(url, options);
  const entry = `import(${JSON.stringify(workerLoader)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(entry, { ...options, eval: true });
}
