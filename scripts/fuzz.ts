/**
 * Long randomized runs: `npm run fuzz -- --minutes N [--seed S] [--calls C] [--total T] [--json F]`.
 *
 * Launches jobs of test/fuzz/programs/fuzz.ts back to back — 1 to 6 ranks on 1 to 3
 * nodes, a fresh seed each (derived from --seed when given, so a whole run can be
 * repeated) — until the time is up, prints a progress line per job (calls, rate, wrong
 * results, other failures) and a summary with the seeds of every failing job. It stops
 * after N minutes, or once T calls have run when --total is given; --json writes the
 * summary to a file. Exit code 1 if anything failed.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launch } from '../src/index.js';
import { prng } from '../src/core/random.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    seed: { type: 'string' },
    calls: { type: 'string', default: '400' },
    total: { type: 'string' },
    json: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const callsPerJob = Number(values.calls);
const total = values.total !== undefined ? Number(values.total) : Infinity;
if (!(minutes > 0) || !(callsPerJob > 0) || !(total > 0)) throw new Error('--minutes, --calls and --total must be positive numbers');
const base = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const rand = prng(base);
const program = fileURLToPath(new URL('../test/fuzz/programs/fuzz.ts', import.meta.url));
const t0 = Date.now();
let jobs = 0;
let calls = 0;
let checks = 0;
let wrong = 0;
let errors = 0;
const failing: string[] = [];
const byShape = new Map<string, number>();
console.log(`fuzz: ${minutes} min from base seed ${base} (npm run fuzz -- --seed ${base} repeats this run)`);
while (Date.now() - t0 < minutes * 60_000 && calls < total) {
  const ranks = 1 + Math.floor(rand() * 6);
  const nodes = 1 + Math.floor(rand() * Math.min(3, ranks));
  const seed = Math.floor(rand() * 2 ** 31);
  const r = await launch({ ranks, nodes, program, args: [String(seed), String(callsPerJob)], jobTimeoutMs: 300_000, arenaMb: 64 });
  jobs++;
  calls += callsPerJob;
  const shape = `${ranks} ranks / ${nodes} node(s)`;
  byShape.set(shape, (byShape.get(shape) ?? 0) + callsPerJob);
  const reports = r.stdout
    .split('\n')
    .filter((l) => l.includes('REPORT '))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as { rank: number; checks: number; failures: string[] });
  const fails = reports.flatMap((x) => x.failures);
  checks += reports.reduce((n, x) => n + x.checks, 0);
  const w = fails.filter((f) => f.includes('WRONG RESULT')).length;
  wrong += w;
  const bad = r.exitCode !== 0 || reports.length !== ranks || fails.length > 0;
  if (bad) {
    errors += fails.length - w + (r.exitCode !== 0 || reports.length !== ranks ? 1 : 0);
    failing.push(`coll run -n ${ranks} --nodes ${nodes} test/fuzz/programs/fuzz.ts ${seed} ${callsPerJob}  # ${fails[0] ?? r.stderr.split('\n')[0]}`);
  }
  const s = (Date.now() - t0) / 1000;
  const clock = `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
  console.log(`[${clock}] job ${jobs} (${shape}, seed ${seed})${bad ? ' FAILED' : ''}: ${calls} calls, ${(calls / s).toFixed(0)}/s, ${checks} checks, wrong results ${wrong}, other failures ${errors}`);
}
console.log(`\nfuzz summary: ${jobs} jobs, ${calls} collective calls, ${checks} rank checks, wrong results ${wrong}, other failures ${errors}, ${((Date.now() - t0) / 60_000).toFixed(1)} min`);
for (const [shape, n] of [...byShape].sort()) console.log(`  ${shape}: ${n} calls`);
if (failing.length > 0) {
  console.log('\nfailing jobs (each line reproduces one):');
  for (const f of failing) console.log(`  ${f}`);
}
if (values.json) {
  const summary = {
    baseSeed: base,
    callsPerJob,
    jobs,
    calls,
    rankChecks: checks,
    wrongResults: wrong,
    otherFailures: errors,
    minutes: Number(((Date.now() - t0) / 60_000).toFixed(1)),
    byShape: Object.fromEntries([...byShape].sort()),
    failing,
    date: new Date().toISOString(),
  };
  writeFileSync(values.json, `${JSON.stringify(summary, null, 2)}\n`);
}
process.exitCode = failing.length > 0 ? 1 : 0;
