/**
 * Text rendering of a schedule, for debugging and documentation: who talks to whom
 * in each round ('rounds'), or each rank's steps with their dependencies ('ranks').
 */
import { describeStep, type Schedule } from './types.js';

export interface RenderOptions {
  by?: 'rounds' | 'ranks';
  /** Show at most this many items per round line / steps per rank (default 48). */
  maxItems?: number;
  /** Only these ranks (for 'ranks'). */
  ranks?: readonly number[];
}

function ranges(xs: number[]): string {
  const s = [...new Set(xs)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    out.push(j - i >= 2 ? `${s[i]}..${s[j]}` : j === i ? `${s[i]}` : `${s[i]},${s[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

export function renderSchedule(schedule: Schedule, o: RenderOptions = {}): string {
  if (schedule.length === 0) return '(empty schedule)\n';
  const head = schedule[0];
  const rounds = schedule.reduce((m, s) => Math.max(m, s.rounds), 0);
  const max = o.maxItems ?? 48;
  const lines = [`${head.collective}/${head.algorithm}  P=${schedule.length}  rounds=${rounds}`];
  if ((o.by ?? 'rounds') === 'ranks') {
    for (const s of schedule) {
      if (o.ranks && !o.ranks.includes(s.rank)) continue;
      lines.push(`rank ${s.rank}  buffers: ${s.buffers.map((b) => `${b.name}[${b.count}]`).join(' ')}`);
      s.steps.slice(0, max).forEach((st, i) => {
        const deps = st.deps.length ? `  after ${st.deps.join(',')}` : '';
        lines.push(`  #${i} r${st.round}${st.phase ? ` ${st.phase}` : ''}: ${describeStep(st, s.buffers)}${deps}`);
      });
      if (s.steps.length > max) lines.push(`  ... (${s.steps.length - max} more steps)`);
    }
    return lines.join('\n') + '\n';
  }
  for (let t = 0; t < rounds; t++) {
    const msgs = new Map<string, number>();
    const phases = new Set<string>();
    const reducers: number[] = [];
    const copiers: number[] = [];
    for (const s of schedule) {
      for (const st of s.steps) {
        if (st.round !== t) continue;
        if (st.phase) phases.add(st.phase);
        if (st.kind === 'send') msgs.set(`${s.rank}>${st.peer}`, (msgs.get(`${s.rank}>${st.peer}`) ?? 0) + st.region.count);
        else if (st.kind === 'reduce') reducers.push(s.rank);
        else if (st.kind === 'copy') copiers.push(s.rank);
      }
    }
    const items: string[] = [];
    const seen = new Set<string>();
    for (const [k, n] of msgs) {
      if (seen.has(k)) continue;
      const [a, b] = k.split('>').map(Number);
      const back = `${b}>${a}`;
      if (msgs.get(back) === n && !seen.has(back)) {
        seen.add(back);
        items.push(`${Math.min(a, b)}<->${Math.max(a, b)}[${n}]`);
      } else {
        items.push(`${a}->${b}[${n}]`);
      }
      seen.add(k);
    }
    const extra: string[] = [];
    if (reducers.length) extra.push(`reduce@${ranges(reducers)}`);
    if (copiers.length) extra.push(`copy@${ranges(copiers)}`);
    const shown = items.slice(0, max).join(' ');
    const more = items.length > max ? ` ... (+${items.length - max} messages)` : '';
    const label = phases.size ? ` (${[...phases].join(', ')})` : '';
    lines.push(`round ${t}${label}: ${shown}${more}${extra.length ? `  | ${extra.join(' ')}` : ''}`);
  }
  return lines.join('\n') + '\n';
}
