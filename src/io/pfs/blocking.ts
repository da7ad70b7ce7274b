/**
 * A `pfs:` client for rank threads: the calls of client.ts, blocking or as promises,
 * served by a helper thread (client-thread.ts) that owns the sockets. A blocking call
 * posts its request, sleeps on a shared flag (Atomics.wait) and takes the answer with
 * receiveMessageOnPort, so it works while the rank's own event loop is stopped. Data
 * crosses threads as one copy, or none when the rank's buffer is on a
 * SharedArrayBuffer (the helper then reads straight into it).
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { CollectivesError, type ErrorCode } from '../../core/errors.js';
import { startWorker, tsxLoader } from '../../runtime/tsx-loader.js';
import type { Run } from '../view.js';
import { FileError } from '../errors.js';
import type { PfsClientOptions, PfsLayoutOptions, PfsOpenMode } from './client.js';
import type { FileMeta } from './server.js';

/** The workerData key of the helper thread's settings. */
export const CLIENT_THREAD_KEY = 'collectives-pfs-client';

type Call =
  | { readonly op: 'open'; readonly name: string; readonly mode: PfsOpenMode; readonly layout: PfsLayoutOptions }
  | { readonly op: 'remove'; readonly name: string }
  | { readonly op: 'write'; readonly meta: FileMeta; readonly runs: readonly Run[]; readonly data: Uint8Array }
  | { readonly op: 'read'; readonly meta: FileMeta; readonly runs: readonly Run[]; readonly into?: Uint8Array }
  | { readonly op: 'size'; readonly meta: FileMeta }
  | { readonly op: 'setSize'; readonly meta: FileMeta; readonly size: number }
  | { readonly op: 'sync'; readonly meta: FileMeta }
  | { readonly op: 'stats' };

export type PfsCall = Call & { readonly id: number };

export interface PfsAnswer {
  readonly id: number;
  readonly meta?: FileMeta;
  readonly data?: Uint8Array;
  readonly size?: number;
  readonly stats?: Record<string, unknown>;
  readonly error?: { readonly name: string; readonly message: string; readonly hint?: string; readonly code?: string };
}

function rethrow(a: PfsAnswer): PfsAnswer {
  if (!a.error) return a;
  const e = a.error;
  if (e.name === 'FileError' || e.code === undefined) throw new FileError(e.message, e.hint);
  const err = new CollectivesError(e.code as ErrorCode, e.message, e.hint);
  err.name = e.name;
  throw err;
}

export class PfsBridge {
  private readonly worker: Worker;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly syncPort: MessagePort;
  private readonly asyncPort: MessagePort;
  private readonly waiting = new Map<number, { resolve(a: PfsAnswer): void; reject(e: Error): void }>();
  private nextId = 1;
  private dead: string | undefined;

  constructor(
    readonly servers: readonly string[],
    private readonly options: PfsClientOptions = {},
  ) {
    const s = new MessageChannel();
    const a = new MessageChannel();
    this.syncPort = s.port1;
    this.asyncPort = a.port1;
    const ts = import.meta.url.endsWith('.ts');
    this.worker = startWorker(new URL(`./client-thread.${ts ? 'ts' : 'js'}`, import.meta.url), ts ? tsxLoader('the pfs client thread').worker : undefined, {
      workerData: { [CLIENT_THREAD_KEY]: { servers: [...servers], options, flag: this.flag, syncPort: s.port2, asyncPort: a.port2 } },
      transferList: [s.port2, a.port2],
    });
    this.worker.unref();
    this.worker.on('error', (e) => {
      this.dead = e.message;
      for (const w of this.waiting.values()) w.reject(new FileError(`the pfs client thread failed: ${e.message}`));
      this.waiting.clear();
    });
    this.asyncPort.on('message', (ans: PfsAnswer) => {
      const w = this.waiting.get(ans.id);
      this.waiting.delete(ans.id);
      if (this.waiting.size === 0) this.asyncPort.unref();
      if (w) {
        try {
          w.resolve(rethrow(ans));
        } catch (e) {
          w.reject(e as Error);
        }
      }
    });
    this.asyncPort.unref();
  }

  /** The buffer a call hands over to the helper (a write's private copy; never shared memory). */
  private static moved(c: Call): ArrayBuffer[] {
    return c.op === 'write' && !(c.data.buffer instanceof SharedArrayBuffer) ? [c.data.buffer as ArrayBuffer] : [];
  }

  /**
   * A call, blocking this thread until the helper answers (or the request timeout passes).
   * A write's data buffer is moved to the helper, not copied: it must be the caller's own.
   */
  callSync(c: Call): PfsAnswer {
    if (this.dead !== undefined) throw new FileError(`the pfs client thread failed: ${this.dead}`);
    const id = this.nextId++;
    Atomics.store(this.flag, 0, 0);
    this.syncPort.postMessage({ ...c, id }, PfsBridge.moved(c));
    // The client times out its own requests; this bound only catches a helper that died.
    const limit = Date.now() + 2 * (this.options.requestTimeoutMs ?? 120_000) + 10_000;
    for (;;) {
      Atomics.wait(this.flag, 0, 0, 1000);
      const m = receiveMessageOnPort(this.syncPort);
      if (m !== undefined) return rethrow(m.message as PfsAnswer);
      if (Date.now() > limit) throw new FileError(`the pfs client thread did not answer a ${c.op} call`, 'the helper thread is stuck or died; see stderr');
    }
  }

  /** A call as a promise (the rank's event loop must run: await it); a write's data moves as in callSync. */
  call(c: Call): Promise<PfsAnswer> {
    if (this.dead !== undefined) return Promise.reject(new FileError(`the pfs client thread failed: ${this.dead}`));
    const id = this.nextId++;
    this.asyncPort.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.asyncPort.postMessage({ ...c, id }, PfsBridge.moved(c));
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

const bridges = new Map<string, PfsBridge>();

/** This thread's bridge to a list of servers (one helper thread per list, started on first use). */
export function pfsBridge(servers: readonly string[], options: PfsClientOptions = {}): PfsBridge {
  const key = `${servers.join(',')}|${JSON.stringify(options)}`;
  let b = bridges.get(key);
  if (b === undefined) bridges.set(key, (b = new PfsBridge(servers, options)));
  return b;
}
