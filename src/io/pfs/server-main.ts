/**
 * The process of one I/O server started by `coll run --io-servers K` (runtime/io-servers.ts):
 * argv[2] is its IoServerOptions as JSON. It prints `{"ioServer":"host:port"}` once it
 * listens and serves until SIGTERM or SIGINT.
 */
import { IoServer, type IoServerOptions } from './server.js';

const options = JSON.parse(process.argv[2] ?? '{}') as IoServerOptions;
const server = new IoServer(options);
const address = await server.listen();
process.stdout.write(`${JSON.stringify({ ioServer: address })}\n`);
const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
