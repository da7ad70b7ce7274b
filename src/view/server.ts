/**
 * `coll view`'s local web server: 127.0.0.1 only, GET and HEAD of four routes —
 * / (the page), /page.js and /page.css (the bundle, src/view/assets.ts) and
 * /document.json (the files, read again on every request so that reloading the page
 * shows files rewritten since; a file that no longer loads gives a 422 with the
 * reason, which the page shows).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { viewAssets } from './assets.js';
import type { ViewDocument } from './document.js';
import { pageHtml } from './html.js';

export interface ViewServerOptions {
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Makes the document (called per /document.json request). */
  readonly document: () => Promise<ViewDocument>;
  readonly title?: string;
}

export interface ViewServer {
  /** http://127.0.0.1:PORT/ */
  readonly url: string;
  readonly port: number;
  /** Stop listening and drop open connections. */
  close(): Promise<void>;
}

export const VIEW_HOST = '127.0.0.1';

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, head: boolean): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(head ? undefined : body);
}

/** Start the server; resolves once it listens. */
export async function startViewServer(o: ViewServerOptions): Promise<ViewServer> {
  const html = pageHtml({ title: o.title ?? 'coll view' });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.setHeader('allow', 'GET, HEAD');
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n', head);
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    try {
      switch (path) {
        case '/':
        case '/index.html':
          send(res, 200, 'text/html; charset=utf-8', html, head);
          return;
        case '/page.js':
          send(res, 200, 'text/javascript; charset=utf-8', (await viewAssets()).js, head);
          return;
        case '/page.css':
          send(res, 200, 'text/css; charset=utf-8', (await viewAssets()).css, head);
          return;
        case '/document.json': {
          let doc: ViewDocument;
          try {
            doc = await o.document();
          } catch (e) {
            send(res, 422, 'text/plain; charset=utf-8', `${e instanceof Error ? e.message : String(e)}\n`, head);
            return;
          }
          send(res, 200, 'application/json; charset=utf-8', JSON.stringify(doc), head);
          return;
        }
        default:
          send(res, 404, 'text/plain; charset=utf-8', `not found: ${path}\n`, head);
      }
    } catch (e) {
      send(res, 500, 'text/plain; charset=utf-8', `${e instanceof Error ? e.message : String(e)}\n`, head);
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, VIEW_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${VIEW_HOST}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
