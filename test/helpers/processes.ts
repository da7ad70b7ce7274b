/**
 * Finding a job's processes from the outside, for the fault and launch tests: node
 * processes are marked through their environment (COLL_FAULT_MARKER=…), which every
 * process the launcher starts inherits, locally or through a launch agent.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** A fresh marker for a job's environment. */
export function marker(prefix = 'fault'): string {
  return `${prefix}-${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e9)}`;
}

/** Processes (other than this one) whose environment carries COLL_FAULT_MARKER=m. */
export function processesWith(m: string): number[] {
  const needle = `COLL_FAULT_MARKER=${m}`;
  const found: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(needle)) found.push(Number(d));
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return found;
}

/** Wait until no process carries the marker; returns those still there after `ms`. */
export async function leftBehind(m: string, ms = 10_000): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const p = processesWith(m);
    if (p.length === 0 || Date.now() > until) return p;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The command line of a process ('' when it is gone). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/**
 * Start a job's command and resolve once its output holds `count` lines with 'ready'
 * (every rank is in); rejects, with its stderr, if it ends first.
 */
export async function startUntilReady(cmd: string, args: readonly string[], o: { cwd: string; env?: NodeJS.ProcessEnv }, count: number): Promise<ChildProcessByStdio<null, Readable, Readable>> {
  const child = spawn(cmd, args, { cwd: o.cwd, env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => void (err += String(d)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += String(d);
      if ((out.match(/ready/g) ?? []).length >= count) resolve();
    });
    child.once('close', (code) => reject(new Error(`the job ended (exit ${code}) before every rank was ready: ${err}`)));
  });
  return child;
}
