/**
 * Test helper: launch a rank program from test/runtime/programs and collect the
 * REPORT lines the programs print (see programs/cases.ts).
 */
import { fileURLToPath } from 'node:url';
import { launch, type LaunchResult } from '../../src/runtime/launcher.js';

export interface RankReport {
  rank: number;
  checks: number;
  failures: string[];
  /** The program that printed it, in a job of programs/several.ts. */
  program?: string;
}

export interface JobResult extends LaunchResult {
  reports: RankReport[];
}

/** `program`: a file of test/runtime/programs, or an absolute path. */
export async function runJob(program: string, ranks: number, nodes = 1, args: string[] = [], env: Record<string, string> = {}): Promise<JobResult> {
  const r = await launch({
    ranks,
    nodes,
    program: program.startsWith('/') ? program : fileURLToPath(new URL(`./programs/${program}`, import.meta.url)),
    args,
    env,
    arenaMb: 64,
    jobTimeoutMs: 170_000,
  });
  const reports = r.stdout
    .split('\n')
    .filter((l) => l.includes('REPORT '))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as RankReport)
    .sort((a, b) => a.rank - b.rank);
  return { ...r, reports };
}

/** A readable summary when a job did not pass. */
export function explain(r: JobResult): string {
  const fails = r.reports.flatMap((x) => x.failures.map((f) => `rank ${x.rank}: ${f}`));
  return [`exit ${r.exitCode}`, ...fails.slice(0, 10), r.stderr.slice(0, 2000)].join('\n');
}

/** The part of a job of programs/several.ts that `program` (a file name) reported. */
export function programOf(r: JobResult, program: string): JobResult {
  return { ...r, reports: r.reports.filter((x) => x.program === program) };
}
