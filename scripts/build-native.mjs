/**
 * Install step: build the optional native pieces with node-gyp against Node's own
 * headers: the helper native/os-yield.c (sched_yield for waiting ranks) and, for each
 * MPI whose development files are installed (Open MPI, MPICH), the MPI transport's
 * binding native/mpi/coll-mpi.c (one addon per MPI: their ABIs differ; build log in
 * native/mpi/build-<mpi>.log). It never fails the install: without a compiler or
 * headers the library waits without the helper and talks TCP between nodes
 * (docs/runtime.md). COLL_NO_NATIVE=1 skips the build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
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

/** Where Node's headers are when npm does not say (a system Node: /usr/include/node). */
function nodedirArgs() {
  if (process.env.npm_config_nodedir) return [];
  const prefix = path.dirname(path.dirname(process.execPath));
  return existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? [`--nodedir=${prefix}`] : [];
}

function errors(r) {
  return `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n').filter((l) => /error/i.test(l)).slice(0, 3).join(' | ');
}

/** The MPI binding for each installed MPI (scripts/mpi-flags.mjs finds its wrapper compiler). */
function buildMpi(gyp) {
  const dir = path.join(root, 'native', 'mpi');
  spawnSync(process.execPath, [gyp, 'clean'], { cwd: dir });
  for (const flavour of ['openmpi', 'mpich']) {
    const env = { ...process.env, COLL_MPI_FLAVOUR: flavour };
    const probe = spawnSync(process.execPath, [path.join(root, 'scripts', 'mpi-flags.mjs'), 'cflags'], { env, encoding: 'utf8' });
    if (probe.status !== 0) {
      say(`MPI transport for ${flavour} not built (${flavour === 'openmpi' ? 'libopenmpi-dev' : 'libmpich-dev'} not installed)`);
      continue;
    }
    const r = spawnSync(process.execPath, [gyp, 'configure', 'build', ...nodedirArgs()], { cwd: dir, env, encoding: 'utf8' });
    writeFileSync(path.join(dir, `build-${flavour}.log`), `${r.stdout ?? ''}${r.stderr ?? ''}`);
    if (r.status === 0) say(`MPI transport for ${flavour} built`);
    else say(`MPI transport for ${flavour} not built (${errors(r) || `node-gyp exit ${r.status}`}; log: native/mpi/build-${flavour}.log)`);
  }
}

if (process.env.COLL_NO_NATIVE === '1') {
  say('native helper skipped (COLL_NO_NATIVE=1); waiting ranks park instead of yielding, nodes talk TCP');
} else {
  const gyp = nodeGyp();
  if (!gyp) say('node-gyp not found: native helper not built; waiting ranks park instead of yielding, nodes talk TCP');
  else {
    const r = spawnSync(process.execPath, [gyp, 'rebuild', ...nodedirArgs()], { cwd: root, encoding: 'utf8' });
    if (r.status === 0) say('native helper built (sched_yield for waiting ranks)');
    else say(`native helper not built (${errors(r) || `node-gyp exit ${r.status}`}); waiting ranks park instead of yielding`);
    buildMpi(gyp);
  }
}
