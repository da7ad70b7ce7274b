/**
 * What the measured experiments' commands (`coll experiment multicast`, `io`) share:
 * their --part / --idle / --from arguments, the progress line, and writing the results
 * (tables on stdout; --json FILE, --plot DIR with one SVG per part, --docs FILE's
 * generated section between its markers, linking the plots).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { replaceSection } from '../../bench/matrix.js';
import { ArgumentError } from '../../core/errors.js';
import { opt, opts, type OptionSpec, type ParsedArgs } from '../args.js';

/** Options every measured experiment takes (after its own). */
export function commonOptions(parts: readonly string[], plots: string, docsExample: string, fromNote = ''): OptionSpec[] {
  return [
    { name: 'part', type: 'string', repeat: true, description: `only these parts, comma-separated or repeated: ${parts.join(', ')} (default all)` },
    { name: 'json', type: 'string', description: 'also write the jobs and the summaries as JSON to FILE' },
    { name: 'plot', type: 'string', description: `write the SVG plots into DIR (${plots})` },
    { name: 'docs', type: 'string', description: `replace the generated section of this markdown file (e.g. ${docsExample}); with --plot, it links the plots` },
    { name: 'from', type: 'string', description: `no jobs: the tables, plots and docs section again from the JSON of an earlier --json run${fromNote}` },
    { name: 'idle', type: 'number', description: 'before each job wait (up to 30 s) until the CPUs are at most this busy, e.g. 0.3 (shared machines)' },
    { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
  ];
}

/** Values of a repeatable option, each possibly comma-separated. */
export const commaList = (values: readonly string[]): string[] => values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);

/** The --part values, checked, in the experiment's order (undefined: all). */
export function chosenParts<P extends string>(args: ParsedArgs, all: readonly P[]): P[] | undefined {
  const parts = commaList(opts<string>(args, 'part'));
  for (const p of parts) if (!(all as readonly string[]).includes(p)) throw new ArgumentError(`--part '${p}' is not one of ${all.join(', ')}`);
  return parts.length > 0 ? all.filter((p) => parts.includes(p)) : undefined;
}

/** --idle, checked. */
export function idleBusy(args: ParsedArgs): number | undefined {
  const b = opt<number>(args, 'idle');
  if (b !== undefined && !(b > 0 && b <= 1)) throw new ArgumentError(`--idle needs a busy fraction in (0, 1], got ${b}`);
  return b;
}

/** --from FILE: the JSON of an earlier run (refusing the options that choose jobs), or undefined. */
export function fromJson(args: ParsedArgs, experiment: string, jobOptions: readonly string[]): unknown {
  const file = opt<string>(args, 'from');
  if (file === undefined) return undefined;
  for (const name of jobOptions) if (args.values.has(name)) throw new ArgumentError(`--${name} chooses jobs; --from runs none`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (e) {
    throw new ArgumentError(`--from ${file}: ${e instanceof Error ? e.message : String(e)}`, `give the file an earlier \`coll experiment ${experiment} --json FILE\` wrote`);
  }
}

/** The progress line on stderr: `name [done/total] what`, rewritten in place on a terminal. */
export function progress(name: string): { onJob(done: number, total: number, what: string): void; onOutput(line: string): void; end(): void } {
  const tty = process.stderr.isTTY === true;
  return {
    onJob: (done, total, what) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}${name} [${done}/${total}] ${what}${tty ? '' : '\n'}`),
    onOutput: (line) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}${line}\n`),
    end: () => {
      if (tty) process.stderr.write('\r\x1b[K');
    },
  };
}

/** A result's outputs, as its measure module renders them. */
export interface ExperimentOutputs<P extends string> {
  readonly tables: string;
  json(): object;
  plots(): readonly { readonly part: P; readonly name: string; readonly svg: string }[];
  markdown(links: Partial<Record<P, string>>): string;
  readonly markers: { readonly begin: string; readonly end: string };
  /** The docs file's first line when --docs names a file that does not exist yet. */
  readonly title: string;
}

/** Tables on stdout; --json, --plot and --docs as asked. */
export function writeOutputs<P extends string>(args: ParsedArgs, o: ExperimentOutputs<P>): void {
  console.log(o.tables);
  const json = opt<string>(args, 'json');
  if (json) {
    writeFileSync(json, `${JSON.stringify(o.json(), null, 2)}\n`);
    process.stderr.write(`wrote ${json}\n`);
  }
  const dir = opt<string>(args, 'plot');
  const docs = opt<string>(args, 'docs');
  const links: Partial<Record<P, string>> = {};
  if (dir) {
    mkdirSync(dir, { recursive: true });
    for (const p of o.plots()) {
      const file = join(dir, p.name);
      writeFileSync(file, p.svg);
      process.stderr.write(`wrote ${file}\n`);
      if (docs) links[p.part] = relative(dirname(docs), file);
    }
  }
  if (docs) {
    const doc = existsSync(docs) ? readFileSync(docs, 'utf8') : `${o.title}\n`;
    writeFileSync(docs, replaceSection(doc, o.markdown(links), o.markers));
    process.stderr.write(`updated ${docs}\n`);
  }
}
