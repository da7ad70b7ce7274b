/**
 * `coll view [FILE…]`: the interactive page for schedules, timelines, benchmark
 * results and model-vs-measurement files, served on 127.0.0.1 (src/view/server.ts)
 * until Ctrl-C, or with `--export out.html` written as one static HTML file
 * (src/view/export.ts). The view modules (and zod) load only when the command runs.
 */
import { spawn } from 'node:child_process';
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import type { ViewServer } from '../../view/server.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'port', type: 'number', description: 'serve on this port of 127.0.0.1 (default: a free one)' },
  { name: 'open', type: 'boolean', description: 'open the page in the default browser (xdg-open, open)' },
  { name: 'export', type: 'string', description: 'write the page with the files as one static HTML file instead of serving it' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = [
  'coll view FILE… [--port N] [--open]       serve the page on 127.0.0.1 (Ctrl-C stops)',
  '       coll view --export out.html FILE…          write it as one HTML file that opens without a server',
].join('\n');

/** The browser opener of this platform. */
function opener(): { cmd: string; args: (url: string) => string[] } {
  if (process.platform === 'darwin') return { cmd: 'open', args: (u) => [u] };
  if (process.platform === 'win32') return { cmd: 'cmd', args: (u) => ['/c', 'start', '""', u] };
  return { cmd: 'xdg-open', args: (u) => [u] };
}

/** Open `url` in the default browser; a message instead when there is no opener. */
function openBrowser(url: string): void {
  const o = opener();
  const child = spawn(o.cmd, o.args(url), { stdio: 'ignore', detached: true });
  child.on('error', (e: NodeJS.ErrnoException) => {
    console.error(`coll view: could not open a browser (${e.code === 'ENOENT' ? `no ${o.cmd} on this system` : e.message}); open ${url} yourself`);
  });
  child.unref();
}

export const viewCommand: Command = {
  name: 'view',
  summary: 'show schedules, timelines, benchmark results and model vs measurement in the browser',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const { PRODUCERS, loadViewDocument } = await import('../../view/load.js');
    if (opt(args, 'help')) {
      const kinds = Object.entries(PRODUCERS).map(([k, p]) => `  ${k.padEnd(9)} ${p}`);
      console.log(`${helpText(USAGE, OPTIONS)}\n\nfiles (recognised by their format tag, else by their shape):\n${kinds.join('\n')}`);
      return 0;
    }
    const files = args.positionals;
    if (files.length === 0) throw new ArgumentError('no files to view (coll view FILE…, or coll view --export out.html FILE…)', `${Object.entries(PRODUCERS).map(([k, p]) => `${k}: ${p}`).join('; ')}`);
    const out = opt<string>(args, 'export');
    if (out !== undefined) {
      if (opt(args, 'port') !== undefined || opt(args, 'open')) throw new ArgumentError('--export writes a file; --port and --open are for the server');
      const doc = await loadViewDocument(files);
      const { writeExport } = await import('../../view/export.js');
      const bytes = await writeExport(out, doc);
      console.log(`wrote ${out} (${doc.files.map((f) => `${f.name}: ${f.kind}`).join(', ')}; ${(bytes / 1024).toFixed(0)} KiB)`);
      return 0;
    }
    const port = opt<number>(args, 'port') ?? 0;
    checkIntRange('--port', port, 0, 65535);
    // Check the files before listening: errors now, not in the browser.
    const first = await loadViewDocument(files);
    await import('../../view/assets.js').then((m) => m.viewAssets());
    const { startViewServer } = await import('../../view/server.js');
    const { documentTitle } = await import('../../view/export.js');
    let server: ViewServer;
    try {
      server = await startViewServer({ port, document: () => loadViewDocument(files), title: documentTitle(first) });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new ArgumentError(`port ${port} of 127.0.0.1 is in use`, 'choose another --port, or leave it out for a free one');
      if (code === 'EACCES') throw new ArgumentError(`port ${port} needs privileges`, 'use a port above 1023, or leave --port out');
      throw e;
    }
    console.log(`coll view: ${first.files.map((f) => `${f.name} (${f.kind})`).join(', ')}`);
    console.log(`serving on ${server.url}  (Ctrl-C to stop)`);
    if (opt(args, 'open')) openBrowser(server.url);
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        void server.close().then(resolve);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    console.log('coll view: stopped');
    return 0;
  },
};
