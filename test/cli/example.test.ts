/** The README's runtime example runs through the launcher and prints the right sums. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launch } from '../../src/runtime/launcher.js';

describe('examples/allreduce.ts', () => {
  it('runs on 4 ranks over 2 node processes', async () => {
    const program = fileURLToPath(new URL('../../examples/allreduce.ts', import.meta.url));
    const r = await launch({ ranks: 4, nodes: 2, program, args: [] });
    expect(r.exitCode).toBe(0);
    const text = r.stdout;
    for (let rank = 0; rank < 4; rank++) expect(text).toContain(`rank ${rank}/4 on node ${rank < 2 ? 0 : 1}/2: sum 10 (expected 10), allgather [0,1,2,3]`);
  });
});

describe('programs that cannot load', () => {
  it('a .ts program with top-level await in a CommonJS package gets a hint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-cjs-'));
    const index = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
    const program = join(dir, 'prog.ts');
    writeFileSync(program, `import { init } from ${JSON.stringify(index)};\nconst comm = init();\nawait comm.ibarrier();\n`);
    const r = await launch({ ranks: 2, nodes: 1, program, args: [] });
    expect(r.exitCode).not.toBe(0);
    expect(r.failure?.reason).toMatch(/rename it to \.mts\/\.mjs, or add "type": "module"/);
  });
});
