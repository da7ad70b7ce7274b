/** A `coll` sub-command. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Run with the arguments after the command name; resolves to the exit code. */
  run(argv: readonly string[]): Promise<number>;
}
