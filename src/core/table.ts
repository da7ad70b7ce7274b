/**
 * Borderless aligned text columns, the one table helper of the CLI, the benchmarks,
 * the experiments and the tuner's report (issue 17: it replaces seven hand-written
 * `padEnd`/`padStart` layouts). Widths count code points, so `µ`, `—` and `−` take one
 * column as they do in a terminal; cells are plain text (no colours, no line breaks).
 */

export type Align = 'l' | 'r';

export interface TableOptions {
  /** Alignment of the first columns; each column not listed takes `others`. */
  readonly align?: readonly Align[];
  /** Alignment of the columns `align` does not list (default left). */
  readonly others?: Align;
  /** Spaces between two columns (default 2). */
  readonly gap?: number;
  /** A rule of dashes under the first row (the head), as wide as each column. */
  readonly rule?: boolean;
}

const width = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * One line per row (plus the rule if asked), every column as wide as its widest cell,
 * cells left- or right-aligned, no spaces at the end of a line. Rows shorter than the
 * widest row are read as ending in empty cells.
 */
export function formatTable(rows: readonly (readonly string[])[], options: TableOptions = {}): string[] {
  const { align = [], others = 'l', gap = 2, rule = false } = options;
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) => Math.max(0, ...rows.map((r) => width(r[c] ?? ''))));
  const sep = ' '.repeat(gap);
  const line = (r: readonly string[]): string =>
    widths
      .map((w, c) => {
        const cell = r[c] ?? '';
        const pad = ' '.repeat(w - width(cell));
        return (align[c] ?? others) === 'r' ? pad + cell : cell + pad;
      })
      .join(sep)
      .trimEnd();
  const lines = rows.map(line);
  if (rule && rows.length > 0) lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join(sep));
  return lines;
}
