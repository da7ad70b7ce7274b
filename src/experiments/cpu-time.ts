/**
 * CPU time of the calling thread (Linux), for "host CPU time spent inside the
 * collective" (seed 003 Fig. 6.10). Node 20 has no per-thread CPU clock
 * (process.cpuUsage() is the whole process: every rank, the proxy and the offload
 * engine), so this reads the first field of /proc/thread-self/schedstat: the
 * thread's sum_exec_runtime in ns.
 *
 * Pitfall: for a thread that is running, the kernel only folds the time since it was
 * last accounted (a scheduler tick, a context switch) into sum_exec_runtime when
 * something calls update_curr(); a plain read of schedstat is stale by up to a tick
 * (1–4 ms), which is larger than the quantities measured here. getrusage(RUSAGE_SELF)
 * — process.cpuUsage() — brings the *calling* thread's runtime up to date
 * (thread_group_cputime() calls task_sched_runtime(current)), so cpuNowNs() calls it
 * first: the value is then exact to the few µs between the two syscalls.
 *
 * Each reading takes ≈ 15 µs of wall time on the 2-core VM these experiments were
 * written on (getrusage ≈ 2.5 µs, the rest the proc read), of which 3–5 µs are charged
 * to the interval between two readings: measure an empty interval with
 * calibrateCpuOverhead() and subtract it. On a VM the counter also advances while the
 * hypervisor has descheduled the vCPU (steal time), which shows up as rare outliers.
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** Keeps the calibration's clock reads observable. */
export let clockSink = 0;

export interface ThreadCpuClock {
  /** CPU time of this thread so far (ns), brought up to date first. */
  nowNs(): number;
  close(): void;
}

/** A CPU clock of the calling thread, or undefined where /proc/thread-self/schedstat cannot be read. */
export function threadCpuClock(): ThreadCpuClock | undefined {
  let fd: number;
  try {
    // The fd names the thread that opened it (thread-self resolves at open time).
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
  const buf = Buffer.alloc(96);
  const read = (): number => {
    const n = readSync(fd, buf, 0, buf.length, 0);
    let v = 0;
    for (let i = 0; i < n; i++) {
      const c = buf[i];
      if (c < 48 || c > 57) break;
      v = v * 10 + (c - 48);
    }
    return v;
  };
  try {
    read();
  } catch {
    closeSync(fd);
    return undefined;
  }
  return {
    nowNs(): number {
      process.cpuUsage(); // update_curr() for this thread (see above)
      return read();
    },
    close(): void {
      closeSync(fd);
    },
  };
}

/**
 * CPU cost (µs) of an empty measured interval (two readings with wall-clock reads in
 * between, as the experiments take them): the median over `samples` tries.
 */
export function calibrateCpuOverhead(clock: ThreadCpuClock, samples = 200): number {
  const d = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const c0 = clock.nowNs();
    const t0 = performance.now();
    const t1 = performance.now();
    const c1 = clock.nowNs();
    d[i] = (c1 - c0) / 1000;
    clockSink += t1 - t0;
  }
  d.sort();
  return d[samples >> 1];
}
