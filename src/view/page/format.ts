/** Number formatting shared by the page's views (units as the CLI prints them). */

/** Microseconds with an automatic unit: 812 ns, 14.1 µs, 2.35 ms, 1.20 s. */
export function formatUs(us: number): string {
  if (!Number.isFinite(us)) return String(us);
  const a = Math.abs(us);
  if (a >= 1e6) return `${(us / 1e6).toFixed(2)} s`;
  if (a >= 1e3) return `${(us / 1e3).toFixed(2)} ms`;
  if (a >= 1) return `${us.toFixed(a >= 100 ? 1 : 2)} µs`;
  return `${(us * 1e3).toFixed(0)} ns`;
}

/** Bytes in binary units: 8 B, 64 KiB, 1.5 MiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[u]}`;
}

/** "16 B", or "64 KiB (65536 B)" where the short form rounds. */
export function formatBytesExact(b: number): string {
  return b < 1024 ? `${b} B` : `${formatBytes(b)} (${b} B)`;
}

/** A ratio as the bench tables print it: 1.23×. */
export function formatRatio(r: number): string {
  return Number.isFinite(r) ? `${r.toFixed(r >= 10 ? 1 : 2)}×` : String(r);
}
