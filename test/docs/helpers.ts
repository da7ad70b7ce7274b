/**
 * Shared by the tests that run the commands of README.md and docs/*.md: finding the
 * `coll …` commands in a markdown file's code blocks, and sending the files a command
 * writes (or reads but the repository does not have) to a temporary directory.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface DocCommand {
  /** What follows `coll ` (comment dropped, spaces collapsed), e.g. `sim reduce --procs 32`. */
  readonly cmd: string;
  /** 1-based line in the markdown file. */
  readonly line: number;
  /** The code block's info string (`sh`, `json`, or '' for a plain fence). */
  readonly lang: string;
  /** Environment assignments before the command (`COLL_X=1 `), or ''. */
  readonly env: string;
}

/**
 * A command line: optional `$ `, environment assignments, `npx ` or a path to the bin, then
 * `coll <subcommand>`. Output lines such as `coll sim: bad.json: …` or `coll: warning: …`
 * are not commands (no space after the word that follows `coll`).
 */
const COMMAND = /^(?:\$\s+)?((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)(npx\s+|\S*\/)?coll\s+([a-z][\w-]*(?:\s.*)?)$/;

/**
 * Every `coll …` command in the fenced code blocks of `markdown`. `npxOnly` keeps only
 * `npx coll …` lines, `langs` only blocks with these info strings.
 */
export function codeBlockCommands(markdown: string, o: { npxOnly?: boolean; langs?: readonly string[] } = {}): DocCommand[] {
  const out: DocCommand[] = [];
  let fence: string | null = null;
  let lang = '';
  markdown.split('\n').forEach((raw, i) => {
    const open = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(raw);
    if (fence === null) {
      if (open) [fence, lang] = [open[1], open[2]];
      return;
    }
    if (open && open[1].startsWith(fence) && open[2] === '') {
      fence = null;
      return;
    }
    if (o.langs && !o.langs.includes(lang)) return;
    const m = COMMAND.exec(raw.replace(/\s+#\s.*$/, '').trim());
    if (!m || (o.npxOnly && !m[2]?.startsWith('npx'))) return;
    out.push({ cmd: m[3].trim().replace(/\s+/g, ' '), line: i + 1, lang, env: m[1].replace(/\s+/g, ' ') });
  });
  return out;
}

/** Options whose value is a file or directory the command writes. */
const WRITES = new Set(['--out', '-o', '--save', '--plot', '--timeline', '--latency-plot', '--docs', '--report']);

/**
 * A documented command's argv with the files it writes moved into `dir` (so that running
 * `--plot docs/img/x.svg` leaves the committed figure alone), and with files it reads that
 * the repository does not have (`--machine my-machine.json`) looked up in `dir`, where the
 * test puts them. `--json FILE` counts as written when FILE has an extension.
 */
export function inTmp(cmd: string, dir: string, root = process.cwd()): string[] {
  const argv = cmd.split(' ');
  const isPath = (a: string): boolean => /^\w[\w./-]*(\.[A-Za-z]\w*|\/)$/.test(a);
  return argv.map((a, i) => {
    const prev = argv[i - 1] ?? '';
    if (!isPath(a)) return a;
    const written = WRITES.has(prev) || (prev === '--json' && /\.[A-Za-z]\w*$/.test(a));
    if (written) return join(dir, a.endsWith('/') ? a.split('/').filter(Boolean).pop() + '/' : (a.split('/').pop() ?? a));
    return existsSync(join(root, a)) ? a : join(dir, a);
  });
}
