/**
 * The one HTML page of `coll view`: served by the server (script and stylesheet by
 * URL, the document fetched from document.json) or written whole by `--export` (script,
 * stylesheet and document inlined, so the file opens from file:// without a server).
 * Inlined text is escaped so that no `</script`, `</style` or `<!--` inside it can end
 * or confuse its element.
 */
import type { ViewDocument } from './document.js';
import type { ViewAssets } from './assets.js';

/** The id of the `<script type="application/json">` element that carries an embedded document. */
export const DATA_ELEMENT_ID = 'coll-view-data';

/** `text` safe as HTML text or a double-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** JSON that is still the same JSON, with no `<` (so no `</script` or `<!--`) and no line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Script source safe inside `<script>`: `<\/script` and `<\!--` mean the same in JavaScript strings, regexes and templates. */
export function scriptForHtml(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** Stylesheet safe inside `<style>` (`\/` is `/` in CSS). */
export function styleForHtml(css: string): string {
  return css.replace(/<\/(style)/gi, '<\\/$1');
}

export interface PageOptions {
  readonly title: string;
  /** Inline the bundle and the document (`--export`), or link them (the server). */
  readonly inline?: { readonly assets: ViewAssets; readonly document: ViewDocument };
}

/** The page's HTML. Served: page.css, page.js and document.json are fetched relative to the page's URL. */
export function pageHtml(o: PageOptions): string {
  const head = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="collectives coll view">',
    `<title>${escapeHtml(o.title)}</title>`,
    '<link rel="icon" href="data:,">',
    o.inline ? `<style>${styleForHtml(o.inline.assets.css)}</style>` : '<link rel="stylesheet" href="page.css">',
    '</head>',
    '<body>',
    '<noscript>This page needs JavaScript to draw the views.</noscript>',
    '<div id="coll-view"></div>',
  ];
  const tail = o.inline
    ? [`<script type="application/json" id="${DATA_ELEMENT_ID}">${jsonForScript(o.inline.document)}</script>`, `<script>${scriptForHtml(o.inline.assets.js)}</script>`]
    : ['<script src="page.js"></script>'];
  return [...head, ...tail, '</body>', '</html>', ''].join('\n');
}
