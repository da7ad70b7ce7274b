/**
 * Install step: build the optional native helper (native/os-yield.c, sched_yield
 * for waiting ranks) with node-gyp against Node's own headers. It never fails the
 * install: where no compiler or headers are available the library waits without it
 * (docs/runtime.md, "Waiting"). COLL_NO_NATIVE=1 skips the build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const say = (msg) => console.log(`collectives: ${msg}`);

function nodeGyp() {
  // npm hands lifecycle scripts its bundled node-gyp; otherwise look next to npm.
  const candidates = [process.env.npm_config_node_gyp];
  if (process.env.npm_execpath) candidates.push(path.join(path.dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  candidates.push(path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  return candidates.find((c) => c && existsSync(c));
}

if (process.env.COLL_NO_NATIVE === '1') {
  say('native helper skipped (COLL_NO_NATIVE=1); waiting ranks park instead of yielding');
} else {
  const gyp = nodeGyp();
  if (!gyp) say('node-gyp not found: native helper not built; waiting ranks park instead of yielding');
  else {
    const r = spawnSync(process.execPath, [gyp, 'rebuild'], { cwd: root, encoding: 'utf8' });
    if (r.status === 0) say('native helper built (sched_yield for waiting ranks)');
    else {
      const why = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n').filter((l) => /error/i.test(l)).slice(0, 3).join(' | ');
      say(`native helper not built (${why || `node-gyp exit ${r.status}`}); waiting ranks park instead of yielding`);
    }
  }
}
