/** The error of the file API and the I/O servers: a file operation failed (the message names the file, the call or the server). */
import { CollectivesError } from '../core/errors.js';

export class FileError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('IO', message, hint);
  }
}
