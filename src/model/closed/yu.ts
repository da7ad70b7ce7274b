/**
 * Closed forms of seed 003 (Yu): the NIC-based barrier model (§6.6, Fig. 6.6) and the
 * MVAPICH job start-up models (§2.7).
 *
 * Barrier:  T(N) = T_init + (⌈log2 N⌉ − 1)·T_trig + T_adj
 *   (at N = 2 this is T_init + T_adj, not T_init: the seed's own inconsistency).
 *
 * Start-up (seconds; W_x = time to move an x-byte-order message, never defined in the
 * thesis; `defaultW` is the extract's inferred calibration W_x = 4·x B / 10^8 B/s, i.e.
 * 4-byte QP ids over ~100 MB/s, NOT a seed value):
 *   Original: 0.100·N + 10.5·N·(W_N + W_{N²}) + 0.12
 *   SSH-DR:   0.100·N + 8.5e−9·N³ + 10.5·N·W_N + 0.12
 *   MPD-BC:   0.20 + 0.0010·N + 0.0180·N + 2.5·N·W_N + 0.30
 */
import { checkIntRange } from '../../core/errors.js';

export interface BarrierConstants {
  readonly Tinit: number;
  readonly Ttrig: number;
  readonly Tadj: number;
}

export function nicBarrierTime(c: BarrierConstants, N: number): number {
  checkIntRange('N (nodes)', N, 2, 1 << 30);
  return c.Tinit + (Math.ceil(Math.log2(N) - 1e-12) - 1) * c.Ttrig + c.Tadj;
}

export type StartupScheme = 'original' | 'ssh-dr' | 'mpd-bc';

/** The extract's inferred W_x: 4·x bytes at 10^8 B/s (assumption, see header). */
export const defaultW = (x: number): number => (4 * x) / 1e8;

export function startupTime(scheme: StartupScheme, N: number, W: (x: number) => number = defaultW): number {
  checkIntRange('N (processes)', N, 1, 1 << 30);
  switch (scheme) {
    case 'original':
      return 0.1 * N + 10.5 * N * (W(N) + W(N * N)) + 0.12;
    case 'ssh-dr':
      return 0.1 * N + (8.5e-9 * N ** 3 + 10.5 * N * W(N)) + 0.12;
    case 'mpd-bc':
      return 0.2 + 0.001 * N + (0.018 * N + 2.5 * N * W(N)) + 0.3;
  }
}
