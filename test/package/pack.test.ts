/**
 * The package as a user gets it: `npm pack` of the project (its prepare script
 * builds dist/), installed from the tarball into an empty directory, then `coll
 * --version`, a 4-rank `coll run` of examples/allreduce.mjs on 2 nodes, a pfs: file
 * through 2 I/O servers, `coll view --export` (the page's bundle built into dist/view/
 * by the prepare script), an import of the package, the CommonJS explanation, and the error for a TypeScript program
 * without tsx. The project is copied first, so that packing does not rebuild the
 * dist/ other tests may be using. When dist/ is newer than every input of the build
 * (CI: npm install's prepare script has just built it), the copy takes it and packs
 * with --ignore-scripts instead of building the same dist/ again (10 s of CI).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const work = mkdtempSync(join(tmpdir(), 'coll-pack-'));
const app = join(work, 'app');
let files: string[] = [];

function run(cmd: string, args: string[], cwd: string): { code: number; out: string; err: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' }, timeout: 240_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** Every file under `dir` (absolute paths); none when it does not exist. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

/**
 * Whether dist/ is the build of the sources as they are: complete (a .js for every
 * compiled module) and written after the last change to any input of `npm run build`.
 */
function distIsFresh(): boolean {
  const dist = join(root, 'dist');
  const outputs = filesUnder(dist);
  const modules = filesUnder(join(root, 'src')).filter((f) => /(?<!\.d)\.ts$/.test(f) && !f.includes('/src/view/page/'));
  if (outputs.length === 0 || modules.some((f) => !existsSync(join(dist, relative(join(root, 'src'), f)).replace(/\.ts$/, '.js')))) return false;
  const inputs = [...filesUnder(join(root, 'src')), ...filesUnder(join(root, 'scripts')), ...['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => join(root, f))];
  const newestInput = Math.max(...inputs.filter((f) => existsSync(f)).map((f) => statSync(f).mtimeMs));
  return newestInput < Math.min(...outputs.map((f) => statSync(f).mtimeMs));
}

beforeAll(() => {
  const copy = join(work, 'project');
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const f of tracked) {
    if (!existsSync(join(root, f))) continue; // deleted in the working tree
    mkdirSync(dirname(join(copy, f)), { recursive: true });
    cpSync(join(root, f), join(copy, f));
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  const built = distIsFresh();
  if (built) cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
  const pack = run('npm', ['pack', ...(built ? ['--ignore-scripts'] : []), '--json', '--pack-destination', work], copy);
  expect(pack.code, pack.err).toBe(0);
  const info = JSON.parse(pack.out.slice(pack.out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  files = info[0].files.map((f) => f.path);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, info[0].filename)], app);
  expect(install.code, install.err).toBe(0);
}, 300_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships the built library and CLI, without sources, maps or tests', () => {
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/cli/bin.js');
    expect(files).toContain('LICENSE');
    expect(files).toContain('dist/view/page.js');
    expect(files).toContain('dist/view/page.css');
    expect(files.filter((f) => f.startsWith('dist/view/page/'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map') || f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
  });

  it('runs coll --version', () => {
    const r = run('npx', ['--no-install', 'coll', '--version'], app);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`coll ${version}`);
  });

  it('runs the JavaScript example on 4 ranks in 2 nodes', () => {
    cpSync(join(root, 'examples', 'allreduce.mjs'), join(app, 'allreduce.mjs'));
    const r = run('npx', ['--no-install', 'coll', 'run', '-n', '4', '--nodes', '2', 'allreduce.mjs'], app);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n').filter((l) => l.includes('sum 10 (expected 10), allgather [0,1,2,3]'));
    expect(lines.length, r.out).toBe(4);
  });

  it.skipIf(spawnSync('sh', ['-c', 'command -v mpiexec.mpich']).status !== 0)('runs under mpiexec, one task per rank and with coll node -r 2 (MPICH, PMI-1: no koffi needed)', () => {
    cpSync(join(root, 'examples', 'allreduce.mjs'), join(app, 'allreduce.mjs'));
    const perRank = run('mpiexec.mpich', ['-n', '2', process.execPath, 'allreduce.mjs'], app);
    expect(perRank.code, perRank.err).toBe(0);
    expect(perRank.out.split('\n').filter((l) => l.includes('sum 3 (expected 3), allgather [0,1]'))).toHaveLength(2);
    const perNode = run('mpiexec.mpich', ['-n', '2', './node_modules/.bin/coll', 'node', '-r', '2', 'allreduce.mjs'], app);
    expect(perNode.code, perNode.err).toBe(0);
    expect(perNode.out.split('\n').filter((l) => l.includes('sum 10 (expected 10), allgather [0,1,2,3]'))).toHaveLength(4);
    // npx does not pass the PMI socket on: a clear error, not a hang.
    const npx = run('mpiexec.mpich', ['-n', '2', 'npx', '--no-install', 'coll', 'node', '-r', '2', 'allreduce.mjs'], app);
    expect(npx.code).not.toBe(0);
    expect(npx.err).toContain('is not an open socket in this process');
  });

  it('writes and reads a pfs: file through 2 I/O servers the packed CLI starts (server processes and client threads from dist/)', () => {
    writeFileSync(
      join(app, 'pfs.mjs'),
      [
        "import { init, openFile } from 'collectives';",
        'const comm = init();',
        "const f = openFile(comm, 'pfs:x', 'w', { stripeSize: 4096 });",
        'const mine = new Float64Array(5000).fill(comm.rank + 1);',
        'f.writeAtAll(comm.rank * mine.byteLength, mine);',
        'const back = new Float64Array(5000);',
        'f.readAt(((comm.rank + 1) % comm.size) * mine.byteLength, back);',
        "console.log(`pfs ${f.getSize()} ${back.every((x) => x === ((comm.rank + 1) % comm.size) + 1)}`);",
        'f.close();',
      ].join('\n'),
    );
    const r = run('npx', ['--no-install', 'coll', 'run', '-n', '2', '--io-servers', '2', 'pfs.mjs'], app);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n').filter((l) => l.includes('pfs 80000 true')), r.out).toHaveLength(2);
  });

  it('writes a coll view page with the bundle inlined (dist/view/page.js; no esbuild in the app)', () => {
    cpSync(join(root, 'test', 'view', 'fixtures', 'schedule-bcast-binomial-16.json'), join(app, 'schedule.json'));
    expect(existsSync(join(app, 'node_modules', 'esbuild'))).toBe(false);
    const r = run('npx', ['--no-install', 'coll', 'view', '--export', 'view.html', 'schedule.json'], app);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('wrote view.html (schedule.json: schedule;');
    const html = readFileSync(join(app, 'view.html'), 'utf8');
    expect(html).toContain('<script type="application/json" id="coll-view-data">');
    expect(html).not.toContain('<script src=');
    expect(html.length).toBeGreaterThan(50_000);
  });

  it('imports as an ES module, and explains itself to require()', () => {
    const imp = run(process.execPath, ['--input-type=module', '-e', "import { init, listAlgorithms } from 'collectives'; console.log(typeof init, listAlgorithms('allreduce').length > 3)"], app);
    expect(imp.code, imp.err).toBe(0);
    expect(imp.out.trim()).toBe('function true');
    const req = run(process.execPath, ['-e', "require('collectives')"], app);
    expect(req.code).not.toBe(0);
    expect(req.err).toContain('collectives is an ES module and cannot be loaded with require()');
  });

  it('says what to install when a TypeScript program is run without tsx', () => {
    writeFileSync(join(app, 'prog.ts'), "import { init } from 'collectives';\ninit();\n");
    const r = run('npx', ['--no-install', 'coll', 'run', '-n', '2', 'prog.ts'], app);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('running TypeScript needs tsx, which is not installed');
    expect(r.err).toContain('npm install tsx');
  });
});
