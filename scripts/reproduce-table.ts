/**
 * The table of docs/simulator.md's "Every row, before and after": two `coll reproduce
 * all --json` outputs (before and after a change) side by side, every simulator row
 * grouped by seed, with the status before and after and the row's note (after).
 *
 *   npx tsx scripts/reproduce-table.ts before.json after.json > table.md
 *
 * Rows are matched by seed and claim; a claim only in one file shows "—" on the other
 * side. A small script rather than a table library: the output is one Markdown table.
 */
import { readFileSync } from 'node:fs';

interface Row {
  readonly seed: string;
  readonly claim: string;
  readonly published: string;
  readonly ours: string;
  readonly status: string;
  readonly basis?: string;
  readonly note?: string;
  readonly source: string;
}

function load(file: string): Row[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { checks: Row[] }).checks.filter((r) => r.source === 'sim');
}

const [beforeFile, afterFile] = process.argv.slice(2);
if (beforeFile === undefined || afterFile === undefined) {
  console.error('usage: npx tsx scripts/reproduce-table.ts before.json after.json');
  process.exit(2);
}
const before = load(beforeFile);
const after = load(afterFile);
const key = (r: Row): string => `${r.seed}|${r.claim}`;
const was = new Map(before.map((r) => [key(r), r]));
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const count = (rows: readonly Row[], status: string): number => rows.filter((r) => r.status === status).length;
const summary = (rows: readonly Row[]): string => ['pass', 'fail', 'not-matchable', 'info'].map((s) => `${count(rows, s)} ${s}`).join(', ');

console.log(`Before: ${before.length} rows (${summary(before)}). After: ${after.length} rows (${summary(after)}).\n`);
const seeds = [...new Set([...before, ...after].map((r) => r.seed))].sort();
for (const seed of seeds) {
  console.log(`\n**${seed}**\n`);
  console.log('| claim | published | before | after | basis | note |');
  console.log('|---|---|---|---|---|---|');
  const rows = after.filter((r) => r.seed === seed);
  for (const r of rows) {
    const b = was.get(key(r));
    console.log(`| ${cell(r.claim)} | ${cell(r.published)} | ${b ? `${cell(b.ours)} (${b.status})` : '—'} | ${cell(r.ours)} (**${r.status}**) | ${r.basis ?? ''} | ${cell(r.note ?? '')} |`);
  }
  for (const b of before.filter((r) => r.seed === seed && !after.some((a) => key(a) === key(r)))) {
    console.log(`| ${cell(b.claim)} | ${cell(b.published)} | ${cell(b.ours)} (${b.status}) | — (row replaced) | ${b.basis ?? ''} | |`);
  }
}
