/**
 * The launcher's key-value store served by MPI itself, for jobs on the MPI transport:
 * the MPI library owns the launcher's PMI/PMIx connection once it is initialised (two
 * PMI-1 clients on one PMI_FD would corrupt each other's replies), so the start-up
 * protocol runs over MPI instead. Puts are kept locally; a fence gathers every
 * process's records (MPI_Allgather of their lengths, MPI_Allgatherv of the records);
 * gets read the gathered copy. Abort is MPI_Abort. Closing leaves MPI to the node link,
 * which finalizes it after the last frame (finalize is shared and happens once).
 */
import type { MpiSession } from '../transport/mpi/binding.js';
import type { Kvs } from './kvs.js';

export class MpiKvs implements Kvs {
  readonly name: string;
  private readonly mine = new Map<string, string>();
  private gathered: Map<string, string>[] = [];

  constructor(private readonly session: MpiSession) {
    this.name = `MPI (${session.flavour}, ${session.info.version.split('\n')[0].trim()})`;
  }

  put(key: string, value: string): Promise<void> {
    this.mine.set(key, value);
    return Promise.resolve();
  }

  async fence(): Promise<void> {
    const blob = Buffer.from(JSON.stringify([...this.mine]));
    const all = await this.session.fence(blob);
    this.gathered = all.map((b) => new Map(JSON.parse(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')) as [string, string][]));
  }

  get(rank: number, key: string): Promise<string> {
    const v = this.gathered[rank]?.get(key);
    if (v === undefined) return Promise.reject(new Error(`${this.name}: process ${rank} put no '${key}' before the last fence`));
    return Promise.resolve(v);
  }

  abort(code: number): Promise<void> {
    this.session.addon.abort(code);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
