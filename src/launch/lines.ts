/**
 * Lines of a byte stream as they arrive (UTF-8, characters split across chunks kept
 * whole): node output relayed by the launcher, the control channel's JSON messages, a
 * node's first line of standard input (firstLine).
 */
import { StringDecoder } from 'node:string_decoder';

export interface LineReader {
  /** Detach from the stream; returns what was read but is not yet a line (for a handover). */
  stop(): string;
}

/**
 * Call `onLine` for every line (empty ones too). `flushAtEnd`: at the stream's end, a
 * last line without its newline is passed too (output), rather than dropped (a message
 * cut off by a dying peer). Lines after a stop() inside `onLine` are kept for the rest.
 */
export function readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void, flushAtEnd = false): LineReader {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let stopped = false;
  const onData = (chunk: Buffer | string): void => {
    const parts = (partial + (typeof chunk === 'string' ? chunk : decoder.write(chunk))).split('\n');
    partial = parts.pop() ?? '';
    for (let i = 0; i < parts.length; i++) {
      if (stopped) {
        partial = `${parts.slice(i).join('\n')}\n${partial}`;
        return;
      }
      onLine(parts[i]);
    }
  };
  const onEnd = (): void => {
    if (flushAtEnd && !stopped && partial) onLine(partial);
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  return {
    stop: () => {
      stopped = true;
      stream.off('data', onData);
      stream.off('end', onEnd);
      return partial;
    },
  };
}

/** The first line of a stream (a secret handed over on standard input), trimmed; the stream is paused after it. */
export function firstLine(input: NodeJS.ReadableStream, whatIsMissing: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const onEnd = (): void => reject(new Error(`standard input ended before ${whatIsMissing}`));
    const reader = readLines(input, (line) => {
      reader.stop();
      input.off('end', onEnd);
      input.pause();
      resolve(line.trim());
    });
    input.once('end', onEnd);
  });
}
