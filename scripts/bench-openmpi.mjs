#!/usr/bin/env node
/* global URL */
// Side-by-side allreduce (float64 sum) latency: collectives (`coll bench`) vs Open MPI
// (/work/shared/peer-bench/run.sh), alternating runs, medians over repetitions.
// Usage: node scripts/bench-openmpi.mjs [repetitions=5] [peer-bench dir]
// Prints a markdown table (docs/benchmarks.md) and the raw runs as JSON on stderr.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const reps = Number(process.argv[2] ?? 5);
const peer = process.argv[3] ?? '/work/shared/peer-bench';
const root = fileURLToPath(new URL('..', import.meta.url));

const configs = [
  { name: '2 ranks, 1 node, 8 B', ours: ['-n', '2', '--min-bytes', '8', '--max-bytes', '8', '--iterations', '100000'], ompi: ['2', 'allreduce', '8', '8', '100000'], sizes: [8] },
  {
    name: '2 ranks, 1 node, shared buffers',
    ours: ['-n', '2', '--min-bytes', '1048576', '--max-bytes', '8388608', '--iterations', '1000'],
    ompi: ['2', 'allreduce', '1048576', '8388608', '1000'],
    sizes: [1048576, 8388608],
  },
  { name: '8 ranks, 1 node (oversubscribed), 8 B', ours: ['-n', '8', '--min-bytes', '8', '--max-bytes', '8', '--iterations', '5000'], ompi: ['8', 'allreduce', '8', '8', '5000'], sizes: [8] },
  {
    name: '2 nodes x 1 rank, TCP loopback, 8 B',
    ours: ['-n', '2', '--nodes', '2', '--min-bytes', '8', '--max-bytes', '8', '--iterations', '5000'],
    ompi: ['2', 'allreduce', '8', '8', '5000'],
    ompiEnv: { MPIRUN_ARGS: '--mca btl tcp,self' },
    sizes: [8],
  },
];

function jsonLines(out) {
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

function runOurs(args) {
  const out = execFileSync('npx', ['tsx', 'src/cli/bin.ts', 'bench', 'allreduce', '--json', ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return jsonLines(out);
}

function runOmpi(args, env) {
  const out = execFileSync(`${peer}/run.sh`, ['openmpi', ...args], { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  return jsonLines(out);
}

/** CPU busy fraction over `ms` (Linux /proc/stat), to start runs on a quiet machine. */
function busy(ms) {
  const read = () => readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const a = read();
  execFileSync('sleep', [String(ms / 1000)]);
  const b = read();
  const d = b.map((v, i) => v - a[i]);
  const total = d.reduce((x, y) => x + y, 0);
  return total > 0 ? 1 - (d[3] + d[4]) / total : 0;
}

/** Wait (up to a minute) until other work leaves the machine mostly idle. */
function quiet() {
  const t0 = Date.now();
  let b = busy(1000);
  while (b > 0.25 && Date.now() - t0 < 60_000) b = busy(1000);
  return b;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const raw = [];
const rows = [];
for (const c of configs) {
  const ours = new Map();
  const ompi = new Map();
  const algo = new Map();
  for (let r = 0; r < reps; r++) {
    const load = quiet();
    for (const rec of runOurs(c.ours)) {
      if (!ours.has(rec.bytes)) ours.set(rec.bytes, []);
      ours.get(rec.bytes).push(rec.avg_us);
      algo.set(rec.bytes, rec.algorithm);
      raw.push({ config: c.name, impl: 'collectives', busyBefore: +load.toFixed(2), ...rec });
    }
    for (const rec of runOmpi(c.ompi, c.ompiEnv ?? {})) {
      if (!ompi.has(rec.bytes)) ompi.set(rec.bytes, []);
      ompi.get(rec.bytes).push(rec.avg_us);
      raw.push({ config: c.name, impl: 'openmpi', busyBefore: +load.toFixed(2), ...rec });
    }
  }
  for (const b of c.sizes) {
    const o = median(ours.get(b) ?? [NaN]);
    const m = median(ompi.get(b) ?? [NaN]);
    rows.push({ name: c.name, bytes: b, algorithm: algo.get(b), ours: o, ompi: m, ratio: o / m, oursRuns: ours.get(b), ompiRuns: ompi.get(b) });
  }
}
process.stderr.write(`${JSON.stringify(raw)}\n`);
console.log('| configuration | bytes | collectives algorithm | collectives µs (median) | Open MPI µs (median) | ratio | runs (collectives / Open MPI) |');
console.log('|---|---:|---|---:|---:|---:|---|');
for (const r of rows) {
  const runs = `${r.oursRuns.map((v) => v.toFixed(2)).join(', ')} / ${r.ompiRuns.map((v) => v.toFixed(2)).join(', ')}`;
  console.log(`| ${r.name} | ${r.bytes} | ${r.algorithm} | ${r.ours.toFixed(2)} | ${r.ompi.toFixed(2)} | ${r.ratio.toFixed(2)}× | ${runs} |`);
}
