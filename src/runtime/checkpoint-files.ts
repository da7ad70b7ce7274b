/**
 * Checkpoint files (seed 003 ch. 4, issue 19): one file per rank and a manifest per
 * checkpoint, committed atomically.
 *
 * Layout of a checkpoint directory D:
 *
 *   D/ckpt-000007.tmp/rank-3.ckpt    being written (a crash leaves it: never loaded)
 *   D/ckpt-000007/rank-3.ckpt        complete: every rank's file and manifest.json
 *   D/ckpt-000007/manifest.json      {version, epoch, ranks, nodes, program, files[]}
 *
 * A rank file is the magic "COLLCKP1", a u32 format version, a u64 payload length,
 * the payload's SHA-256 (32 bytes), then the payload: v8.serialize of the rank's
 * record. Every file is fsync'ed before the manifest is written; the manifest is
 * fsync'ed, then the directory renamed from .tmp to its final name and D fsync'ed, so a
 * checkpoint is complete exactly when its final directory exists. The previous
 * complete checkpoints stay until a newer one is complete; the last `keep` are kept.
 * A file that is truncated, has another magic or version, or fails its checksum is
 * refused with an error naming it, never loaded.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { CheckpointError } from '../core/errors.js';

const MAGIC = Buffer.from('COLLCKP1', 'latin1');
const FORMAT = 1;
const HEADER = MAGIC.length + 4 + 8 + 32;

export interface CheckpointManifest {
  readonly version: 1;
  readonly epoch: number;
  readonly ranks: number;
  readonly nodes: number;
  readonly program: string;
  /** ISO time of the commit. */
  readonly created: string;
  readonly files: readonly { readonly rank: number; readonly bytes: number; readonly sha256: string }[];
}

const dirName = (epoch: number): string => `ckpt-${String(epoch).padStart(6, '0')}`;
export const tmpDir = (root: string, epoch: number): string => join(root, `${dirName(epoch)}.tmp`);
export const finalDir = (root: string, epoch: number): string => join(root, dirName(epoch));
export const rankFile = (dir: string, rank: number): string => join(dir, `rank-${rank}.ckpt`);

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Write one rank's record into the checkpoint's .tmp directory, synced; returns its size and checksum. */
export function writeRankFile(root: string, epoch: number, rank: number, record: unknown): { bytes: number; sha256: string; path: string } {
  const dir = tmpDir(root, epoch);
  mkdirSync(dir, { recursive: true });
  const payload = serialize(record);
  const sha = createHash('sha256').update(payload).digest();
  const head = Buffer.alloc(HEADER);
  MAGIC.copy(head, 0);
  head.writeUInt32LE(FORMAT, MAGIC.length);
  head.writeBigUInt64LE(BigInt(payload.byteLength), MAGIC.length + 4);
  sha.copy(head, MAGIC.length + 12);
  const path = rankFile(dir, rank);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
    writeSync(fd, payload);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { bytes: HEADER + payload.byteLength, sha256: sha.toString('hex'), path };
}

/** Read and verify one rank's record of a complete checkpoint. */
export function readRankFile(dir: string, rank: number): unknown {
  const path = rankFile(dir, rank);
  let b: Buffer;
  try {
    b = readFileSync(path);
  } catch (e) {
    throw new CheckpointError(`checkpoint file ${path} cannot be read: ${(e as Error).message}`, 'restart from a complete checkpoint directory (coll run --restart DIR)');
  }
  const bad = (why: string): CheckpointError => new CheckpointError(`checkpoint file ${path} is ${why}; it is not loaded`, 'restart from an earlier checkpoint (remove this one) or start afresh');
  if (b.byteLength < HEADER || !b.subarray(0, MAGIC.length).equals(MAGIC)) throw bad('not a checkpoint file (bad magic or shorter than its header)');
  if (b.readUInt32LE(MAGIC.length) !== FORMAT) throw bad(`of format ${b.readUInt32LE(MAGIC.length)}, not ${FORMAT}`);
  const n = Number(b.readBigUInt64LE(MAGIC.length + 4));
  if (b.byteLength - HEADER !== n) throw bad(`truncated or padded (${b.byteLength - HEADER} payload bytes, the header says ${n})`);
  const payload = b.subarray(HEADER);
  const sha = createHash('sha256').update(payload).digest();
  if (!sha.equals(b.subarray(MAGIC.length + 12, HEADER))) throw bad('corrupted (its SHA-256 does not match)');
  return deserialize(payload);
}

/**
 * Commit a checkpoint whose rank files are all written (every rank passed the barrier
 * after writing): the manifest, then the rename; then drop all but the last `keep`
 * complete checkpoints and any stale .tmp directory older than this one.
 */
export function commitCheckpoint(root: string, m: CheckpointManifest, keep: number): string {
  const dir = tmpDir(root, m.epoch);
  const manifest = join(dir, 'manifest.json');
  const fd = openSync(manifest, 'w');
  try {
    writeSync(fd, `${JSON.stringify(m, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncPath(dir);
  const done = finalDir(root, m.epoch);
  rmSync(done, { recursive: true, force: true });
  renameSync(dir, done);
  fsyncPath(root);
  const complete = listCheckpoints(root);
  for (const e of complete.slice(0, Math.max(0, complete.length - keep))) rmSync(finalDir(root, e), { recursive: true, force: true });
  for (const name of readdirSync(root)) {
    const t = /^ckpt-(\d+)\.tmp$/.exec(name);
    if (t && Number(t[1]) < m.epoch) rmSync(join(root, name), { recursive: true, force: true });
  }
  return done;
}

/** Epochs of the complete checkpoints in `root`, ascending. */
export function listCheckpoints(root: string): number[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((n) => /^ckpt-(\d+)$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null && existsSync(join(root, m[0], 'manifest.json')))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/** The latest complete checkpoint of `root` and its manifest, or undefined. */
export function latestCheckpoint(root: string): { dir: string; manifest: CheckpointManifest } | undefined {
  const all = listCheckpoints(root);
  for (let i = all.length - 1; i >= 0; i--) {
    const dir = finalDir(root, all[i]);
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as CheckpointManifest;
      if (manifest.version === 1 && manifest.epoch === all[i]) return { dir, manifest };
    } catch {
      // An unreadable manifest: try the previous checkpoint.
    }
  }
  return undefined;
}
