/** Unit helpers for writing machine parameter sets in the units the papers use. */

/** Microseconds → seconds. */
export const us = (x: number): number => x * 1e-6;
/** Nanoseconds → seconds. */
export const ns = (x: number): number => x * 1e-9;
/** Bandwidth in MB/s (10^6 B/s) → seconds per byte. */
export const perByteFromMBps = (mbps: number): number => 1 / (mbps * 1e6);
/** Bandwidth in GB/s (10^9 B/s) → bytes per second. */
export const GBps = (x: number): number => x * 1e9;
