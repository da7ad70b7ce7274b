/**
 * Compiler and linker flags of one installed MPI for native/mpi/binding.gyp, from
 * the MPI's own compiler wrapper (Open MPI: mpicc.openmpi -showme; MPICH:
 * mpicc.mpich -compile_info). COLL_MPI_FLAVOUR names the MPI (openmpi | mpich).
 * `node scripts/mpi-flags.mjs name|cflags|libs`; exit 1 (and a reason on stderr)
 * when that MPI or its wrapper is not installed.
 */
import { spawnSync } from 'node:child_process';

const flavour = process.env.COLL_MPI_FLAVOUR ?? 'openmpi';
const what = process.argv[2];

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0 || r.error) {
    process.stderr.write(`mpi-flags: '${cmd} ${args.join(' ')}' failed (${r.error?.message ?? r.stderr.trim()}); is the ${flavour} development package installed?\n`);
    process.exit(1);
  }
  return r.stdout.trim().split(/\s+/).filter(Boolean);
}

function flags() {
  if (flavour === 'openmpi') {
    const cflags = run('mpicc.openmpi', ['-showme:compile']);
    const link = run('mpicc.openmpi', ['-showme:link']);
    return { cflags, link };
  }
  if (flavour === 'mpich') {
    const all = run('mpicc.mpich', ['-compile_info']).slice(1);
    return { cflags: all.filter((f) => f.startsWith('-I') || f.startsWith('-D')), link: all.filter((f) => f.startsWith('-L') || f.startsWith('-l') || f.startsWith('-Wl')) };
  }
  process.stderr.write(`mpi-flags: unknown COLL_MPI_FLAVOUR '${flavour}' (openmpi or mpich)\n`);
  process.exit(1);
}

if (what === 'name') console.log(`coll_mpi_${flavour}`);
else {
  const f = flags();
  // The library directories also go into the run path: Open MPI's libmpi is not on the default search path.
  const rpath = f.link.filter((x) => x.startsWith('-L')).map((x) => `-Wl,-rpath,${x.slice(2)}`);
  console.log((what === 'cflags' ? f.cflags : [...f.link, ...rpath]).join(' '));
}
