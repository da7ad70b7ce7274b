/**
 * The seed 004 testjig (Table 1) as custom simulator schedules: on a 3×3 mesh the
 * central node (rank 4) either just receives S doubles from one neighbour (L = 1),
 * or exchanges S doubles with 1, 2 or 3 neighbours at once, sending and receiving
 * (L = 2, 4, 6). f(L) = dT(L)/dT(1), dT the time difference between two block sizes,
 * measures how much of the node's bandwidth the L transfers share. Use with
 * `simulate({ schedule: testjigSchedule(L, S), procs: 9, mesh: { width: 3, height: 3 } })`.
 */
import { ArgumentError } from '../core/errors.js';
import type { RankSchedule, Step } from '../schedule/types.js';

/** The centre's neighbours in the order they join (left, right, up). */
const NEIGHBOURS = [3, 5, 1] as const;
const CENTRE = 4;

/** Per-rank schedules of the testjig with L ∈ {1, 2, 4, 6} links and S doubles per message. */
export function testjigSchedule(L: number, S: number): (rank: number) => RankSchedule {
  if (![1, 2, 4, 6].includes(L)) throw new ArgumentError(`the testjig uses L = 1, 2, 4 or 6 links, got ${L}`);
  if (!Number.isSafeInteger(S) || S < 1) throw new ArgumentError(`the testjig block size must be a positive integer, got ${S}`);
  const partners = L === 1 ? [NEIGHBOURS[0]] : NEIGHBOURS.slice(0, L / 2);
  const exchange = L > 1;
  return (rank: number): RankSchedule => {
    const steps: Step[] = [];
    const region = (buf: number, i: number) => ({ buf, offset: i * S, count: S });
    if (rank === CENTRE) {
      partners.forEach((p, i) => {
        if (exchange) steps.push({ kind: 'send', peer: p, region: region(0, 0), deps: [], round: 0 });
        steps.push({ kind: 'recv', peer: p, region: region(1, i), deps: [], round: 0 });
      });
    } else if ((partners as readonly number[]).includes(rank)) {
      steps.push({ kind: 'send', peer: CENTRE, region: region(0, 0), deps: [], round: 0 });
      if (exchange) steps.push({ kind: 'recv', peer: CENTRE, region: region(1, 0), deps: [], round: 0 });
    }
    return {
      collective: 'allgather',
      algorithm: `testjig-L${L}`,
      rank,
      size: 9,
      buffers: [
        { name: 'in', count: S },
        { name: 'out', count: S * Math.max(1, partners.length) },
      ],
      steps,
      rounds: steps.length > 0 ? 1 : 0,
    };
  };
}
