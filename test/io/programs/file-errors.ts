/** Bad input to the file API: each case prints `<label>: <error name>: <message>` on the ranks it fails on. Arg: a directory. */
import { openFile } from '../../../src/io/file.js';
import { init } from '../../helpers/rank-api.js';
import { join } from 'node:path';

const world = init({ timeoutMs: 30_000 });
const dir = process.argv[2] as string;
const attempt = (label: string, f: () => void): void => {
  try {
    f();
    console.log(`${label}: ok`);
  } catch (e) {
    const err = e as Error;
    console.log(`${label}: ${err.name}: ${err.message}`);
  }
};
attempt('missing', () => openFile(world, join(dir, 'nope.bin'), 'r'));
attempt('directory', () => openFile(world, join(dir, 'sub'), 'rw'));
const small = join(dir, 'small.bin');
const w = openFile(world, small, 'w');
if (world.rank === 0) {
  w.writeAt(0, new Float64Array([1, 2]));
  attempt('read in w mode', () => {
    const x = new Float64Array(2);
    w.readAt(0, x);
    if (x[0] !== 1 || x[1] !== 2) throw new Error(`read ${x.join(', ')}`);
  });
}
w.close();
const f = openFile(world, small, 'r');
if (world.rank === 0) attempt('past end', () => f.readAt(8, new Float64Array(2)));
attempt('past end all', () => f.readAtAll(world.rank * 8, new Float64Array(2)));
if (world.rank === 0) {
  attempt('negative', () => f.readAt(-1, new Uint8Array(1)));
  attempt('read-only', () => f.writeAt(0, new Uint8Array(1)));
  f.setView({ etype: 'float64' });
  attempt('partial', () => f.readAt(0, new Uint8Array(12)));
}
f.close();
