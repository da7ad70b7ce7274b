/**
 * An in-memory fake multi-node world for the executor's multicast tests: one fake
 * transport endpoint per world rank, with or without `Endpoint.imcast` (see
 * {@link ImcastMode}), that records every multicast and point-to-point send.
 */
import { expect } from 'vitest';
import type { Callback, Endpoint, MessageKey, RecvOp, RecvOptions, SendOp } from '../../src/transport/types.js';

/** A fake operation (send, receive or multicast) as the endpoints hand it out. */
interface Op {
  done: boolean;
  error: Error | undefined;
  source: number;
  tag: number;
  bytes: number;
}

/**
 * How the endpoints multicast: `multicast` delivers at once and completes on the next
 * progress(), `sync` delivers and completes inside the call, `decline` returns
 * undefined (the executor falls back to sends), `absent` has no `imcast`, `fail`
 * completes at once with an error ('multicast path down') and delivers nothing.
 */
export type ImcastMode = 'multicast' | 'sync' | 'decline' | 'absent' | 'fail';

/** One `imcast` call as the world recorded it (world ranks). */
export interface ImcastCall {
  src: number;
  dsts: number[];
  index: number;
  bytes: number;
}

/** A world of fake endpoints: eager copies, completions on the next progress(). */
export class FakeWorld {
  /** Messages sent and not yet received, by key, source, destination and index. */
  readonly inbox = new Map<string, Uint8Array>();
  /** Every `imcast` call that did not decline, in call order. */
  readonly imcasts: ImcastCall[] = [];
  /** Every `isend` (world ranks), in call order. */
  readonly isends: { src: number; dst: number }[] = [];
  /** The endpoint of each world rank. */
  readonly endpoints: Endpoint[];

  constructor(worldSize: number, mode: ImcastMode) {
    this.endpoints = Array.from({ length: worldSize }, (_, rank) => this.endpoint(rank, mode));
  }

  private static id(k: MessageKey, src: number, dst: number): string {
    return `${k.context}:${k.space}:${k.tag}:${src}:${dst}:${k.index}`;
  }

  private endpoint(rank: number, mode: ImcastMode): Endpoint {
    const pendingSends: { op: Op; cb?: Callback<SendOp> }[] = [];
    const posted: { id: string; dest: Uint8Array; op: Op; cb?: Callback<RecvOp> }[] = [];
    const deliver = (k: MessageKey, dst: number, data: Uint8Array): void => {
      const id = FakeWorld.id(k, rank, dst);
      expect(this.inbox.has(id), `message ${id} sent twice`).toBe(false);
      this.inbox.set(id, data.slice());
    };
    const sendOp = (cb?: Callback<SendOp>): Op => {
      const op: Op = { done: false, error: undefined, source: rank, tag: 0, bytes: 0 };
      pendingSends.push({ op, cb });
      return op;
    };
    const ep: Endpoint = {
      rank,
      isend: (k, data, cb) => {
        this.isends.push({ src: rank, dst: k.dst });
        deliver(k, k.dst, data);
        return sendOp(cb);
      },
      irecv: (k: MessageKey, dest: Uint8Array, _o?: RecvOptions, cb?: Callback<RecvOp>) => {
        const op: Op = { done: false, error: undefined, source: k.src, tag: k.tag, bytes: 0 };
        posted.push({ id: FakeWorld.id(k, k.src, rank), dest, op, cb });
        return op;
      },
      progress: () => {
        let any = false;
        for (const s of pendingSends.splice(0)) {
          s.op.done = true;
          s.cb?.(s.op);
          any = true;
        }
        for (let i = 0; i < posted.length; i++) {
          const r = posted[i];
          const data = this.inbox.get(r.id);
          if (!data) continue;
          this.inbox.delete(r.id);
          posted.splice(i--, 1);
          expect(data.byteLength, r.id).toBe(r.dest.byteLength);
          r.dest.set(data);
          r.op.bytes = data.byteLength;
          r.op.done = true;
          r.cb?.(r.op);
          any = true;
        }
        return any;
      },
      park: () => undefined,
      parkAsync: () => Promise.resolve(),
      aborted: () => undefined,
      cancel: () => false,
    };
    if (mode !== 'absent') {
      ep.imcast = (k, dsts, data, cb) => {
        if (mode === 'decline') return undefined;
        this.imcasts.push({ src: rank, dsts: [...dsts], index: k.index, bytes: data.byteLength });
        if (mode === 'fail') {
          const op: Op = { done: true, error: new Error('multicast path down'), source: rank, tag: 0, bytes: 0 };
          cb?.(op);
          return op;
        }
        for (const d of dsts) deliver(k, d, data);
        if (mode === 'sync') {
          // Completes inside the call (a transport that buffers at once).
          const op: Op = { done: true, error: undefined, source: rank, tag: 0, bytes: 0 };
          cb?.(op);
          return op;
        }
        return sendOp(cb);
      };
    }
    return ep;
  }
}
