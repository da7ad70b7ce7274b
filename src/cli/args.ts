/**
 * Argument parser for the `coll` CLI: positionals, `--name value`, `--name=value`,
 * `-n value`, boolean flags, repeatable options, sizes with units (`64KiB`, `1M`), and
 * the single-dash long options MPI users type (`-np 4` is `--np 4`). Unknown options
 * get the closest known one as a hint.
 *
 * Hand-written rather than node:util parseArgs, which groups `-np` into `-n -p`, has
 * no numeric or size types and no suggestions.
 */
import { ArgumentError } from '../core/errors.js';

export interface OptionSpec {
  readonly name: string;
  readonly alias?: string;
  /** 'bytes': a size with an optional unit (parseSize). */
  readonly type: 'string' | 'number' | 'boolean' | 'bytes';
  readonly repeat?: boolean;
  readonly description: string;
}

export interface ParsedArgs {
  readonly positionals: string[];
  readonly values: Map<string, (string | number | boolean)[]>;
  /** Everything after a bare `--` or after the first positional when `stopAtPositional`. */
  readonly rest: string[];
}

export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[], stopAfterPositionals = Infinity): ParsedArgs {
  const byName = new Map<string, OptionSpec>();
  for (const s of specs) {
    byName.set(`--${s.name}`, s);
    if (s.alias) byName.set(`-${s.alias}`, s);
  }
  const positionals: string[] = [];
  const values = new Map<string, (string | number | boolean)[]>();
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (positionals.length >= stopAfterPositionals) {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--') {
      rest.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('-') && a.length > 1 && !/^-\d/.test(a)) {
      const eq = a.indexOf('=');
      const flag = eq >= 0 ? a.slice(0, eq) : a;
      // -np, -host, …: a single dash before a long name, as mpirun accepts.
      const spec = byName.get(flag) ?? (/^-[a-z][a-z-]+$/.test(flag) ? byName.get(`-${flag}`) : undefined);
      if (!spec) {
        const near = closest(flag.replace(/^-+/, ''), specs.map((s) => s.name));
        throw new ArgumentError(
          `unknown option '${flag}'${near ? `; did you mean --${near}?` : ''}`,
          `options: ${specs.map((s) => `--${s.name}`).join(' ')}`,
        );
      }
      let raw: string | undefined = eq >= 0 ? a.slice(eq + 1) : undefined;
      let v: string | number | boolean;
      if (spec.type === 'boolean') {
        v = raw === undefined ? true : raw !== 'false' && raw !== '0';
      } else {
        if (raw === undefined) {
          raw = argv[++i];
          if (raw === undefined) throw new ArgumentError(`option --${spec.name} needs a value`);
        }
        if (spec.type === 'number') {
          const n = Number(raw);
          if (!Number.isFinite(n)) throw new ArgumentError(`option --${spec.name} needs a number, got '${raw}'`);
          v = n;
        } else if (spec.type === 'bytes') {
          v = parseSize(spec.name, raw);
        } else {
          v = raw;
        }
      }
      const l = values.get(spec.name) ?? [];
      if (!spec.repeat) l.length = 0;
      l.push(v);
      values.set(spec.name, l);
    } else {
      positionals.push(a);
    }
  }
  return { positionals, values, rest };
}

/**
 * A size in bytes with an optional unit, binary in every spelling: 8, 8B, 4k, 4K, 4KB,
 * 4KiB = 4096; M/MB/MiB = 2^20; G/GB/GiB = 2^30. Fractions are allowed when the result
 * is a whole number (1.5K = 1536).
 */
export function parseSize(name: string, s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)(i?b)?$/i.exec(s.trim());
  if (!m) throw sizeError(name, s);
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  const v = Number(m[1]) * mult;
  if (!Number.isSafeInteger(v)) throw sizeError(name, s);
  return v;
}

function sizeError(name: string, s: string): ArgumentError {
  return new ArgumentError(`--${name} needs a size in bytes (a whole number, optionally with a unit: 64K, 64KiB, 1M, 4MiB), got '${s}'`);
}

/** The name closest to `name` (edit distance at most a third of its length, at least 2), if any. */
export function closest(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const n of names) {
    const d = editDistance(name, n);
    if (d < bestD) {
      best = n;
      bestD = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

export function opt<T extends string | number | boolean>(p: ParsedArgs, name: string): T | undefined {
  const l = p.values.get(name);
  return l && l.length > 0 ? (l[l.length - 1] as T) : undefined;
}

export function opts<T extends string | number | boolean>(p: ParsedArgs, name: string): T[] {
  return (p.values.get(name) ?? []) as T[];
}

export function helpText(usage: string, specs: readonly OptionSpec[]): string {
  const lines = [`usage: ${usage}`, ''];
  for (const s of specs) {
    const flag = `${s.alias ? `-${s.alias}, ` : ''}--${s.name}${s.type === 'boolean' ? '' : ` <${s.type === 'bytes' ? 'size' : s.type}>`}`;
    lines.push(`  ${flag.padEnd(28)} ${s.description}`);
  }
  return lines.join('\n');
}
