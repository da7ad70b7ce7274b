/**
 * `coll view` on the command line (in-process through main(), no browser): --help,
 * --export writing one HTML file with the document embedded and the bundle inlined,
 * and the errors for no files, an unreadable file, an unknown format and a busy port.
 * The page in a browser: shell.test.ts, server.test.ts and the views' tests.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { ViewDocument } from '../../src/view/document.js';
import { captureConsole } from '../helpers/console.js';
import { fixture } from './harness.js';

const out = captureConsole();
const tmp = mkdtempSync(join(tmpdir(), 'coll-view-cli-'));

describe('coll view', () => {
  it('--help names the options and the commands that write each kind of file', async () => {
    expect(await main(['view', '--help'])).toBe(0);
    const text = out.out.join('\n');
    for (const w of ['--export', '--port', '--open', 'coll schedule', 'coll sim', 'coll bench matrix', 'coll tune', 'coll fit']) expect(text).toContain(w);
  });

  it('--export writes one HTML file: stylesheet and script inlined, the document in #coll-view-data', async () => {
    const html = join(tmp, 'view.html');
    expect(await main(['view', '--export', html, fixture('schedule-bcast-binomial-16.json'), fixture('bench-matrix.json')]), out.err.join('\n')).toBe(0);
    expect(out.out.join('\n')).toMatch(/wrote .*view\.html \(schedule-bcast-binomial-16\.json: schedule, bench-matrix\.json: bench; \d+ KiB\)/);
    const text = readFileSync(html, 'utf8');
    expect(text).toMatch(/^<!doctype html>/);
    expect(text).not.toMatch(/<script src=|<link rel="stylesheet"|https?:\/\/(?!www\.w3\.org)/);
    const data = /<script type="application\/json" id="coll-view-data">([^]*?)<\/script>/.exec(text);
    const doc = JSON.parse(data?.[1] ?? 'null') as ViewDocument;
    expect(doc.files.map((f) => [f.name, f.kind])).toEqual([
      ['schedule-bcast-binomial-16.json', 'schedule'],
      ['bench-matrix.json', 'bench'],
    ]);
    // Exactly the two scripts (data and page) and one style element: nothing inlined ends its element early.
    expect(text.match(/<script/g)?.length).toBe(2);
    expect(text.match(/<\/script>/g)?.length).toBe(2);
    expect(text.match(/<\/style>/g)?.length).toBe(1);
  });

  it('errors: no files, an unreadable file, an unknown format (exit 2, the file named)', async () => {
    expect(await main(['view'])).toBe(2);
    expect(out.err.join('\n')).toMatch(/coll view: no files to view/);
    out.clear();
    expect(await main(['view', '--export', join(tmp, 'x.html'), join(tmp, 'nope.json')])).toBe(2);
    expect(out.err.join('\n')).toMatch(/nope\.json: cannot read the file \(no such file\)/);
    out.clear();
    const odd = join(tmp, 'odd.json');
    writeFileSync(odd, JSON.stringify({ format: 'something-else' }));
    expect(await main(['view', odd])).toBe(2);
    expect(out.err.join('\n')).toMatch(/odd\.json: unknown format 'something-else'\n {2}hint: coll view reads: schedule \(coll schedule/);
    out.clear();
    expect(await main(['view', '--export', join(tmp, 'y.html'), '--port', '8080', odd])).toBe(2);
    expect(out.err.join('\n')).toMatch(/--port and --open are for the server/);
  });

  it('a port in use', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      expect(await main(['view', '--port', String(port), fixture('schedule-bcast-binomial-16.json')])).toBe(2);
      expect(out.err.join('\n')).toMatch(new RegExp(`port ${port} of 127\\.0\\.0\\.1 is in use`));
    } finally {
      blocker.close();
    }
  });
});
