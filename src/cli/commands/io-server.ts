/**
 * `coll io-server --dir DIR [--port P] …`: one I/O server of the `pfs:` file system
 * (src/io/pfs/server.ts), in the foreground until Ctrl-C. Start one per disk or host,
 * then run jobs with `coll run --io-server host:port,…` (the first is the metadata
 * service); `coll run --io-servers K` starts K of them for the job instead.
 */
import { ArgumentError } from '../../core/errors.js';
import { RENDEZVOUS_POLICIES, type Completion, type RendezvousPolicy } from '../../io/pfs/policy.js';
import { IoServer } from '../../io/pfs/server.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

export const IO_SERVER_OPTIONS: OptionSpec[] = [
  { name: 'eager', type: 'bytes', description: 'largest message sent eagerly with its request (default 2KiB)' },
  { name: 'chunk', type: 'bytes', description: 'bytes per data frame of a rendezvous transfer (default 1MiB)' },
  { name: 'rendezvous', type: 'string', description: `who moves large data: ${RENDEZVOUS_POLICIES.join(', ')} (default adaptive)` },
  { name: 'completion', type: 'string', description: 'event (the last byte completes a transfer, default) or fin (an explicit FIN message)' },
  { name: 'max-bulk', type: 'number', description: 'rendezvous transfers a server runs at once, the rest wait (default 4)' },
  { name: 'loaded-at', type: 'number', description: 'transfers in progress from which a side counts as loaded (default 2)' },
  { name: 'sync-writes', type: 'boolean', description: 'fdatasync after every write (PVFS2 trovesync)' },
];

const OPTIONS: OptionSpec[] = [
  { name: 'dir', type: 'string', description: 'where the server keeps its stripes and metadata (created if missing)' },
  { name: 'host', type: 'string', description: 'address to listen on (default 127.0.0.1)' },
  { name: 'port', type: 'number', description: 'port to listen on (default: a free one, printed)' },
  { name: 'client-timeout', type: 'number', description: 'free a silent client after this many ms (default 600000)' },
  ...IO_SERVER_OPTIONS,
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'coll io-server --dir DIR [--host H] [--port P] [--rendezvous adaptive|server|pull|push] …';

/** The messaging settings of IO_SERVER_OPTIONS, checked. */
export function ioServerSettings(args: ReturnType<typeof parseArgs>): Record<string, number | string | boolean> {
  const rendezvous = opt<string>(args, 'rendezvous');
  if (rendezvous !== undefined && !(RENDEZVOUS_POLICIES as readonly string[]).includes(rendezvous)) throw new ArgumentError(`--rendezvous ${rendezvous} is not one of ${RENDEZVOUS_POLICIES.join(', ')}`);
  const completion = opt<string>(args, 'completion');
  if (completion !== undefined && completion !== 'event' && completion !== 'fin') throw new ArgumentError(`--completion ${completion} is not event or fin`);
  const out: Record<string, number | string | boolean> = {};
  const set = (k: string, v: number | string | boolean | undefined): void => {
    if (v !== undefined) out[k] = v;
  };
  set('eager', opt<number>(args, 'eager'));
  set('chunk', opt<number>(args, 'chunk'));
  set('rendezvous', rendezvous as RendezvousPolicy | undefined);
  set('completion', completion as Completion | undefined);
  set('maxBulk', opt<number>(args, 'max-bulk'));
  set('loadedAt', opt<number>(args, 'loaded-at'));
  set('syncWrites', opt<boolean>(args, 'sync-writes'));
  return out;
}

export const ioServerCommand: Command = {
  name: 'io-server',
  summary: 'an I/O server of the pfs: parallel file system',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    if (opt(args, 'help')) {
      console.log(helpText(USAGE, OPTIONS));
      return 0;
    }
    const dir = opt<string>(args, 'dir');
    if (dir === undefined) throw new ArgumentError('--dir is required', `usage: ${USAGE}`);
    const server = new IoServer({ dir, host: opt<string>(args, 'host'), port: opt<number>(args, 'port'), clientTimeoutMs: opt<number>(args, 'client-timeout'), ...ioServerSettings(args) });
    const address = await server.listen();
    console.log(`coll io-server: serving ${dir} on ${address} (Ctrl-C to stop)`);
    return new Promise<number>((resolve) => {
      const stop = (): void => {
        void server.close().then(() => resolve(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  },
};
