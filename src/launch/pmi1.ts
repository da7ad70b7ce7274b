/**
 * A PMI-1 client over the wire protocol (newline-terminated `cmd=… key=value` lines on
 * the socket the launcher passes as PMI_FD), as MPICH's hydra (`mpiexec`) and Slurm's
 * pmi2 plugin (`srun --mpi=pmi2`) serve it. The job's store is one key space (kvsname);
 * records are keyed `<key>-<rank>` so that `get(rank, key)` can address a process.
 *
 * One command at a time: the next line is written only after the reply to the previous
 * one has arrived. Slurm's server takes each read() of the socket as exactly one command
 * (src/plugins/mpi/pmi2/pmi1.c, "TODO: read until newline"), so two lines that arrive
 * together are one garbled command with one reply, and the client waits forever for the
 * other; it also reads at most 1024 bytes per command (PMIU_MAXLINE of MPICH's simple
 * PMI), so a longer line is refused here rather than cut there.
 */
import { fstatSync } from 'node:fs';
import net from 'node:net';
import { TransportError } from '../core/errors.js';
import type { Kvs } from './kvs.js';

type Reply = Map<string, string>;

/** The longest command line (with its newline) PMI-1 servers read in one piece. */
const MAX_LINE = 1024;

/** Whether `fd` is an open socket of this process: PMI_FD survives only a direct start (npx and npm exec close it). */
export function isOpenSocket(fd: number): boolean {
  try {
    return fstatSync(fd).isSocket();
  } catch {
    return false;
  }
}

export class Pmi1Kvs implements Kvs {
  readonly name = 'PMI-1 (PMI_FD)';
  private readonly socket: net.Socket;
  private readonly waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  private partial = '';
  /** The last command sent or queued: the next one is written when it has settled. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Why the connection is gone, once it is. */
  private gone: string | undefined;
  private kvsname = '';
  private vallenMax = 1024;

  private constructor(fd: number, private readonly rank: number) {
    this.socket = new net.Socket({ fd, readable: true, writable: true });
    this.socket.on('data', (d: Buffer) => {
      const parts = (this.partial + d.toString('utf8')).split('\n');
      this.partial = parts.pop() ?? '';
      for (const line of parts) if (line.trim() !== '') this.waiting.shift()?.resolve(parse(line));
    });
    const broken = (why: string): void => {
      this.gone ??= why;
      for (const w of this.waiting.splice(0)) w.reject(new TransportError(`the PMI server closed the connection (${why})`));
    };
    this.socket.on('error', (e) => broken(e.message));
    this.socket.on('close', () => broken('closed'));
  }

  /** Connect on PMI_FD and initialise (PMI_Init, get_maxes, get_my_kvsname). */
  static async open(fd: number, rank: number): Promise<Pmi1Kvs> {
    if (!isOpenSocket(fd)) {
      throw new TransportError(
        `PMI_FD ${fd} is not an open socket in this process: something between the launcher and this program closed it (npx and npm exec do)`,
        'start the program or coll directly: mpiexec -n 2 ./node_modules/.bin/coll node -r 4 prog.js',
      );
    }
    const k = new Pmi1Kvs(fd, rank);
    const init = await k.command('cmd=init pmi_version=1 pmi_subversion=1', 'response_to_init');
    if (init.get('rc') !== '0') throw new TransportError(`the PMI server refused PMI-1 (rc=${init.get('rc') ?? '?'})`);
    const maxes = await k.command('cmd=get_maxes', 'maxes');
    k.vallenMax = Number(maxes.get('vallen_max') ?? 1024);
    k.kvsname = (await k.command('cmd=get_my_kvsname', 'my_kvsname')).get('kvsname') ?? '';
    if (!k.kvsname) throw new TransportError('the PMI server sent no kvsname');
    return k;
  }

  /** Send one command once the previous one has been answered; its reply. */
  private command(line: string, expect: string): Promise<Reply> {
    const bytes = Buffer.byteLength(line) + 1;
    if (bytes > MAX_LINE) return Promise.reject(new TransportError(`PMI: the command '${line.split(' ')[0]} …' is ${bytes} bytes, over the PMI-1 line limit of ${MAX_LINE}`));
    const send = (): Promise<Reply> =>
      new Promise<Reply>((resolve, reject) => {
        if (this.gone !== undefined) {
          reject(new TransportError(`the PMI server closed the connection (${this.gone})`));
          return;
        }
        this.waiting.push({ resolve, reject });
        this.socket.write(`${line}\n`);
      });
    const reply = this.tail.then(send, send);
    this.tail = reply.catch(() => undefined);
    return reply.then((r) => {
      if (r.get('cmd') !== expect) throw new TransportError(`PMI: expected '${expect}' after '${line.split(' ')[0]}', got '${r.get('cmd') ?? ''}'`);
      return r;
    });
  }

  async put(key: string, value: string): Promise<void> {
    checkWord('key', key);
    checkWord('value', value);
    if (value.length > this.vallenMax) throw new TransportError(`PMI: value of ${value.length} characters exceeds the server's ${this.vallenMax}`);
    const r = await this.command(`cmd=put kvsname=${this.kvsname} key=${key}-${this.rank} value=${value}`, 'put_result');
    if (r.get('rc') !== '0') throw new TransportError(`PMI put ${key} failed: ${r.get('msg') ?? r.get('rc') ?? '?'}`);
  }

  async fence(): Promise<void> {
    await this.command('cmd=barrier_in', 'barrier_out');
  }

  async get(rank: number, key: string): Promise<string> {
    const r = await this.command(`cmd=get kvsname=${this.kvsname} key=${key}-${rank}`, 'get_result');
    if (r.get('rc') !== '0') throw new TransportError(`PMI get ${key} of rank ${rank} failed: ${r.get('msg') ?? r.get('rc') ?? '?'}`);
    return r.get('value') ?? '';
  }

  abort(code: number, message: string): Promise<void> {
    // No reply: the launcher ends the job. The message is printed by the caller. Not
    // queued: it must reach the server even while a command (a fence) waits for its reply.
    void message;
    this.socket.write(`cmd=abort exitcode=${code}\n`);
    return Promise.resolve();
  }

  async close(): Promise<void> {
    await this.command('cmd=finalize', 'finalize_ack').catch(() => undefined);
    this.socket.destroy();
  }
}

function parse(line: string): Reply {
  const out: Reply = new Map();
  for (const field of line.trim().split(/\s+/)) {
    const i = field.indexOf('=');
    if (i > 0) out.set(field.slice(0, i), field.slice(i + 1));
  }
  return out;
}

/** PMI-1 fields are space-separated key=value pairs: no spaces or '=' inside. */
function checkWord(what: string, w: string): void {
  if (/[\s=]/.test(w) || w === '') throw new TransportError(`PMI: ${what} '${w}' must be a non-empty word without spaces or '='`);
}
