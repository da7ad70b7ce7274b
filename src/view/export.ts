/**
 * `coll view --export out.html FILE…`: the page as ONE static HTML file, with the
 * bundle's script and stylesheet and the document inlined (the document in
 * `<script type="application/json" id="coll-view-data">`), which opens from file://
 * without a server.
 */
import { writeFileSync } from 'node:fs';
import { viewAssets } from './assets.js';
import type { ViewDocument } from './document.js';
import { pageHtml } from './html.js';

/** The page title for a document: its files' names. */
export function documentTitle(doc: ViewDocument): string {
  const names = doc.files.map((f) => f.name);
  return `coll view${names.length ? `: ${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}` : ''}`;
}

/** The standalone HTML of `doc`. */
export async function exportHtml(doc: ViewDocument): Promise<string> {
  return pageHtml({ title: documentTitle(doc), inline: { assets: await viewAssets(), document: doc } });
}

/** Write the standalone HTML of `doc` to `out`; resolves to its size in bytes. */
export async function writeExport(out: string, doc: ViewDocument): Promise<number> {
  const html = await exportHtml(doc);
  writeFileSync(out, html);
  return Buffer.byteLength(html);
}
