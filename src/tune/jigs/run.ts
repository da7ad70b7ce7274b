/**
 * Run a measurement jig as a job through the public `launch()` and return its
 * records. The jig programs sit next to this file (.ts under tsx/vitest, .js in the
 * build). A job that fails, times out or prints malformed records raises a JigError
 * with the launcher's reason and the tail of the job's stderr.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launch } from '../../runtime/launcher.js';
import { JigError, parseJigOutput, type JigName, type JigRecord } from './protocol.js';

export interface JigJob {
  readonly ranks: number;
  readonly nodes: number;
  /** The jig's configuration (passed as one JSON argument). */
  readonly config: unknown;
  /** Kill the job after this long (ms). Default 5 minutes. */
  readonly timeoutMs?: number;
}

/** Path of a jig program (pingpong, serial, nbl). */
export function jigProgram(name: JigName): string {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const p = fileURLToPath(new URL(`./${name}.${ext}`, import.meta.url));
  if (!existsSync(p)) throw new JigError(`the ${name} jig program is missing: ${p}`, 'rebuild the package (npm run build)');
  return p;
}

export async function runJig<K extends JigName>(name: K, job: JigJob): Promise<Extract<JigRecord, { jig: K }>[]> {
  const r = await launch({
    ranks: job.ranks,
    nodes: job.nodes,
    program: jigProgram(name),
    args: [JSON.stringify(job.config)],
    arenaMb: 64,
    jobTimeoutMs: job.timeoutMs ?? 300_000,
  });
  if (r.exitCode !== 0) {
    const why = r.failure ? (r.failure.rank >= 0 ? `rank ${r.failure.rank}: ${r.failure.reason}` : r.failure.reason) : `exit code ${r.exitCode}`;
    const tail = r.stderr.trim().split('\n').slice(-8).join('\n');
    throw new JigError(
      `the ${name} jig failed on ${job.ranks} ranks / ${job.nodes} nodes: ${why.split('\n')[0]}`,
      tail ? `job stderr (last lines):\n${tail}` : undefined,
      r.exitCode === 124 ? 'TIMEOUT' : 'RANK_FAILED',
    );
  }
  return parseJigOutput(r.stdout, name);
}
