/**
 * V8's helper threads at the lowest CPU priority, so that they take cores only when
 * ranks leave them idle.
 *
 * V8 optimises hot functions on background threads (and marks and sweeps its heap on
 * the same threads). When every core is held by a spinning rank, such a thread takes
 * a core from one rank for a scheduler slice while its partner waits: the 1–7 ms
 * stalls of a job's first few thousand collective calls (docs/benchmarks.md, "JIT
 * warm-up"). At nice 19 a helper gets about 1.5 % of a busy core, so the stalls
 * spread out to almost nothing while the code runs in V8's baseline tiers, and the
 * compilation finishes whenever ranks wait or park. Measured on 2 cores, 2 ranks,
 * OSU's 1000 calls: 8-byte bcast 7–14 µs → 2.2–3.6 µs, allreduce 10–19 → 1.1–12.7 µs.
 *
 * Linux only: every thread of the process that exists when this runs, except the main
 * thread and the calling one, gets the nice value (setpriority on a thread id affects
 * that thread alone). Threads created later (ranks, the offload engine, the proxy)
 * inherit their creator's priority and run at the normal one. COLL_HELPER_NICE sets
 * the value (default 0: off; 19 is what was measured). Off by default because a worker
 * thread's exit waits for V8's pending background tasks: with the helpers at nice 19
 * and the cores saturated by other processes, an exiting offload engine outlived its
 * 2 s grace in CI (twice in 8 runs).
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export const DEFAULT_HELPER_NICE = 0;

export function helperNice(vars: Readonly<Record<string, string | undefined>> = process.env): number {
  const env = vars.COLL_HELPER_NICE;
  if (env === undefined || env === '') return DEFAULT_HELPER_NICE;
  const n = Number(env);
  return Number.isInteger(n) ? Math.min(19, Math.max(0, n)) : DEFAULT_HELPER_NICE;
}

/** Lower the process's other threads to `nice`; how many were lowered (0 where /proc is missing). */
export function lowerHelperThreads(nice: number): number {
  if (nice <= 0) return 0;
  let tids: number[];
  let self: number;
  try {
    tids = readdirSync('/proc/self/task').map(Number);
    self = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return 0;
  }
  let lowered = 0;
  for (const tid of tids) {
    if (tid === process.pid || tid === self) continue;
    try {
      setPriority(tid, nice);
      lowered++;
    } catch {
      // the thread ended meanwhile
    }
  }
  return lowered;
}
