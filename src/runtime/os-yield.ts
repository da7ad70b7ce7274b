/**
 * OS yield for waiting ranks: sched_yield(2) from the optional native helper
 * (native/os-yield.c, built at install by scripts/build-native.mjs).
 *
 * A rank that waits for another rank of its node first polls (the spin budget);
 * when that runs out, or at once when the job's threads outnumber the cores, it
 * polls and yields between polls for up to the yield budget before it parks on its
 * doorbell. Yielding hands the core to a runnable thread (typically the one it is
 * waiting for) and comes back within microseconds; a futex park and wake-up costs
 * 10–100 µs here, and with 4 or 8 ranks on 2 cores every collective waits for
 * several such hand-offs (docs/benchmarks.md). Without the helper (no compiler at
 * install, COLL_YIELD_US=0) waits go from spinning straight to parking.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The helper's path from this module (src/runtime or dist/runtime). */
const ADDON = fileURLToPath(new URL('../../build/Release/os_yield.node', import.meta.url));

function load(): (() => void) | undefined {
  if (!existsSync(ADDON)) return undefined;
  try {
    const m = createRequire(import.meta.url)(ADDON) as { osYield?: unknown };
    return typeof m.osYield === 'function' ? (m.osYield as () => void) : undefined;
  } catch {
    return undefined; // built for another Node ABI or platform: wait without it
  }
}

/** sched_yield(), or undefined when the native helper is not available. */
export const osYield: (() => void) | undefined = load();

/** Microseconds a waiting rank yields (when it can) before parking; COLL_YIELD_US overrides (0 = never). */
export function defaultYieldUs(vars: Readonly<Record<string, string | undefined>> = process.env): number {
  if (osYield === undefined) return 0;
  const env = vars.COLL_YIELD_US;
  if (env !== undefined && env !== '' && Number.isFinite(Number(env))) return Math.max(0, Number(env));
  return 5000;
}
