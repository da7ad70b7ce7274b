/**
 * The README's `npx coll …` commands run as written (in-process, through the CLI's
 * main(), files written into a temporary directory) and exit 0; where the text says
 * what a command shows, the output is checked for it. Commands that need other hosts,
 * an MPI or a Slurm, or that measure this machine for minutes, are listed with the
 * test that covers them instead.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureConsole } from '../helpers/console.js';
import { main } from '../../src/cli/main.js';
import { codeBlockCommands, inTmp } from './helpers.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** Every `npx coll …` line of the README's sh blocks, comments dropped (not those with environment assignments). */
function readmeCommands(): string[] {
  return codeBlockCommands(README, { npxOnly: true, langs: ['sh'] })
    .filter((c) => c.env === '')
    .map((c) => c.cmd);
}

/** Covered elsewhere: a program in the user's directory, or minutes of measuring and simulating. */
const ELSEWHERE: Record<string, string> = {
  'run -n 4 --nodes 2 allreduce.mjs': 'test/package/pack.test.ts (the packed package runs examples/allreduce.mjs on 4 ranks in 2 nodes)',
  'fit --quick --out machine.json': 'test/tune/fit.test.ts (the fitting on a small matrix)',
  'tune --machine machine.json --out table.json': 'test/tune/tuner.test.ts, test/tune/verify.test.ts (the measured check) and test/tune/fit-loop.test.ts',
  'reproduce models --plot out/': 'test/cli/model-cli.test.ts (reproduce models --quick --plot)',
  'reproduce all --plot out/': 'test/sim/reproduce.test.ts (every seed, --quick)',
  'io-server --dir /data/pfs0 --port 7000': 'test/io/pfs.test.ts (coll io-server processes, one killed and restarted on its directory)',
  'run -n 8 --hosts a:4,b:4 --io-server a:7000,b:7000 prog.js': 'test/io/pfs.test.ts (running servers given by address: the job through launch({ io }) and PfsClient on host:port lists)',
  'view allreduce.json --open': 'test/view/server.test.ts (coll view serving until Ctrl-C: started in-process on a free port, the page loaded over HTTP in chromium, stopped by SIGINT)',
};

/**
 * Run with less effort than the README's command, the output's claims unchanged: seed
 * 000's full run simulates 400 noisy runs per distribution (14 s in CI); --quick runs
 * the same code on 60, with the same rows and statuses except the distribution row it
 * cannot judge on so few runs, which it shows as info.
 */
const INSTEAD: Record<string, string> = { 'reproduce 000': 'reproduce 000 --quick' };

/** Exit codes other than 0 a README command may give (none: `coll reproduce` exits 1 only when a published result fails, and none does). */
const EXIT: Record<string, readonly number[]> = {};

/** What the README says a command shows. */
const SHOWS: { match: RegExp; check: (out: string) => void }[] = [
  {
    // "the host-based reduction varies from run to run … the NIC-based one takes the same 66 µs every run (std 0)"
    match: /^sim reduce .*--mode host --noise seed000-alc/,
    check: (out) => {
      const std = /runs\s+\d+: mean ([\d.]+) µs\s+std ([\d.]+) µs/.exec(out);
      expect(std, out).not.toBeNull();
      expect(Number(std?.[2])).toBeGreaterThan(10);
    },
  },
  {
    match: /^sim reduce .*--mode offload --noise seed000-alc/,
    check: (out) => expect(out).toMatch(/runs\s+\d+: mean [\d.]+ µs\s+std 0 ns/),
  },
  {
    // "inter-node messages per rank: 2 = ⌈log4 12⌉"
    match: /^schedule allreduce nap -n 48 --ppn 4/,
    check: (out) => expect(out).toMatch(/inter-node: \d+ messages, max per rank 2\b/),
  },
  {
    // "runs its choices against the runtime's default … predicted and measured … the verdict"
    match: /^tune .*--verify/,
    check: (out) => {
      expect(out).toMatch(/measured check: P = 2; 2 sizes 8 … 65536 B; median of 3 alternating passes/);
      for (const c of ['allreduce', 'bcast']) for (const b of [8, 65536]) expect(out).toMatch(new RegExp(`\\n\\s+${c}\\s+2\\s+${b}\\s+.*(µs|ms).*(kept|REJECTED: default kept)`));
      expect(out).toMatch(/wrote the tuning report/);
    },
  },
  {
    // "published value, ours, error, tolerance, pass/fail, basis"
    match: /^reproduce 000$/,
    check: (out) => {
      expect(out).toMatch(/\[PASS\] \((sim|model)/);
      expect(out).toMatch(/published .* \| ours .* \| tolerance/);
    },
  },
];

const { out } = captureConsole();

describe("the README's coll commands", () => {
  const commands = readmeCommands();
  it('are found', () => {
    expect(commands.length).toBeGreaterThan(10);
    for (const c of Object.keys(ELSEWHERE)) expect(commands, `README no longer has '${c}'`).toContain(c);
  });
  const dir = mkdtempSync(join(tmpdir(), 'coll-readme-'));
  for (const cmd of commands) {
    if (ELSEWHERE[cmd]) continue;
    it(cmd, async () => {
      // Relative paths the command writes go to the temporary directory.
      const argv = inTmp(INSTEAD[cmd] ?? cmd, dir);
      expect(EXIT[cmd] ?? [0], out.join('\n')).toContain(await main(argv));
      for (const s of SHOWS) if (s.match.test(cmd)) s.check(out.join('\n'));
    }, 120_000);
  }
});
