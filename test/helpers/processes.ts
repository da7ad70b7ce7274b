/**
 * Finding a job's processes from the outside, for the fault and launch tests: node
 * processes are marked through their environment (COLL_FAULT_MARKER=…), which every
 * process the launcher starts inherits, locally or through a launch agent.
 */
import { readdirSync, readFileSync } from 'node:fs';

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
