/**
 * The layers of src/ and which may import which: the shared execution layer
 * (src/exec: executor, tasks, buffers, plans, job configuration) sits under both the
 * rank runtime and the offload engine, which must not import each other's way up
 * (the offload engine never imports src/runtime). Checked on the import statements.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));

/** Top-level directory of src/ each file imports from, per importing directory. */
function edges(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts')) {
        const from = relative(src, p).split('/')[0];
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
          const target = relative(src, resolve(dirname(p), m[1])).split('/')[0];
          if (target !== from && !target.startsWith('..') && !target.endsWith('.js')) {
            if (!out.has(from)) out.set(from, new Set());
            out.get(from)?.add(target);
          }
        }
      }
    }
  };
  walk(src);
  return out;
}

const FORBIDDEN: Record<string, string[]> = {
  core: ['schedule', 'algorithms', 'exec', 'transport', 'offload', 'runtime', 'model', 'sim', 'tune', 'cli', 'bench', 'experiments'],
  transport: ['exec', 'offload', 'runtime', 'sim', 'cli', 'bench', 'experiments'],
  exec: ['offload', 'runtime', 'sim', 'cli', 'bench', 'experiments'],
  offload: ['runtime', 'cli', 'bench', 'experiments'],
  launch: ['exec', 'offload', 'runtime', 'sim', 'cli', 'bench', 'experiments'],
  schedule: ['exec', 'offload', 'runtime', 'transport', 'cli', 'bench'],
  algorithms: ['exec', 'offload', 'runtime', 'transport', 'cli', 'bench'],
};

describe('layering of src/', () => {
  const e = edges();
  for (const [dir, banned] of Object.entries(FORBIDDEN)) {
    it(`${dir} imports none of ${banned.join(', ')}`, () => {
      expect([...(e.get(dir) ?? [])].filter((t) => banned.includes(t))).toEqual([]);
    });
  }

  it('finds the imports it checks (the exec layer is used by both runtime and offload)', () => {
    expect(e.get('runtime')?.has('exec')).toBe(true);
    expect(e.get('offload')?.has('exec')).toBe(true);
    expect(e.get('runtime')?.has('offload')).toBe(true);
  });
});
