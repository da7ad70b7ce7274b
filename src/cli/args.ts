/**
 * Minimal argument parser for the `coll` CLI: positionals, `--name value`,
 * `--name=value`, `-n value`, boolean flags, and repeatable options.
 */
import { ArgumentError } from '../core/errors.js';

export interface OptionSpec {
  readonly name: string;
  readonly alias?: string;
  readonly type: 'string' | 'number' | 'boolean';
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
      const spec = byName.get(flag);
      if (!spec) {
        throw new ArgumentError(`unknown option '${flag}'`, `options: ${specs.map((s) => `--${s.name}`).join(' ')}`);
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
    const flag = `${s.alias ? `-${s.alias}, ` : ''}--${s.name}${s.type === 'boolean' ? '' : ` <${s.type}>`}`;
    lines.push(`  ${flag.padEnd(28)} ${s.description}`);
  }
  return lines.join('\n');
}
