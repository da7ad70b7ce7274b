/**
 * File views (MPI-IO's MPI_File_set_view): which bytes of a file a rank's reads and
 * writes address. A view is a displacement (bytes), an elementary type (the unit of
 * offsets and counts) and a filetype: a pattern of blocks of elements that tiles the
 * file from the displacement on, the holes belonging to other ranks.
 *
 *   contiguous                       every element, in order (the default view: bytes)
 *   { kind: 'vector', blocklength, stride }   blocks of `blocklength` elements every
 *                                    `stride` elements (block-cyclic: rank r of P uses
 *                                    disp = r·blocklength·size, stride = P·blocklength)
 *   { kind: 'subarray', sizes: [R, C], subsizes: [r, c], starts: [r0, c0] }   a tile of a
 *                                    row-major R×C array of elements, repeated every R·C
 *
 * `runs(offset, count)` turns a stretch of the view (in elements, from view offset
 * `offset`) into file byte runs, in order, adjacent runs merged.
 */
import { ArgumentError, checkCount } from '../core/errors.js';
import { datatype as lookupDatatype, type DatatypeName } from '../core/datatypes.js';

export type FilePattern =
  | { readonly kind: 'contiguous' }
  | { readonly kind: 'vector'; readonly blocklength: number; readonly stride: number }
  | { readonly kind: 'subarray'; readonly sizes: readonly [number, number]; readonly subsizes: readonly [number, number]; readonly starts: readonly [number, number] };

export interface FileViewSpec {
  /** Bytes from the start of the file where the view begins (default 0). */
  readonly disp?: number;
  /** Unit of offsets and counts (default 'uint8': bytes). */
  readonly etype?: DatatypeName;
  /** The pattern (default contiguous). */
  readonly filetype?: FilePattern;
}

/** A byte run of the file. */
export interface Run {
  readonly offset: number;
  readonly bytes: number;
}

export class FileView {
  readonly disp: number;
  readonly etype: DatatypeName;
  /** Bytes per element. */
  readonly esize: number;
  /** The pattern's blocks (element offsets and lengths within one extent) and its extent in elements. */
  private readonly blocks: readonly { readonly at: number; readonly len: number }[];
  private readonly extent: number;
  /** Elements per extent (the sum of the block lengths). */
  private readonly perExtent: number;

  constructor(spec: FileViewSpec = {}) {
    this.disp = spec.disp ?? 0;
    checkCount('view displacement', this.disp);
    this.etype = spec.etype ?? 'uint8';
    this.esize = lookupDatatype(this.etype).size;
    const f = spec.filetype ?? { kind: 'contiguous' };
    if (f.kind === 'contiguous') {
      this.blocks = [{ at: 0, len: 1 }];
      this.extent = 1;
    } else if (f.kind === 'vector') {
      if (!Number.isSafeInteger(f.blocklength) || f.blocklength < 1 || !Number.isSafeInteger(f.stride) || f.stride < f.blocklength) {
        throw new ArgumentError(`a vector filetype needs 1 ≤ blocklength ≤ stride, got blocklength ${f.blocklength}, stride ${f.stride}`, 'e.g. { kind: "vector", blocklength: 4, stride: 16 }');
      }
      this.blocks = [{ at: 0, len: f.blocklength }];
      this.extent = f.stride;
    } else if (f.kind === 'subarray') {
      const [R, C] = f.sizes;
      const [r, c] = f.subsizes;
      const [r0, c0] = f.starts;
      const ok = [R, C, r, c, r0, c0].every((x) => Number.isSafeInteger(x) && x >= 0) && r >= 1 && c >= 1 && r0 + r <= R && c0 + c <= C;
      if (!ok) throw new ArgumentError(`a subarray filetype needs its tile inside the array: sizes [${R}, ${C}], subsizes [${r}, ${c}], starts [${r0}, ${c0}]`);
      this.blocks = Array.from({ length: r }, (_, i) => ({ at: (r0 + i) * C + c0, len: c }));
      this.extent = R * C;
    } else {
      throw new ArgumentError(`unknown filetype kind '${(f as { kind: string }).kind}'`, "use 'contiguous', 'vector' or 'subarray'");
    }
    this.perExtent = this.blocks.reduce((s, b) => s + b.len, 0);
  }

  /** File byte runs of `count` elements from view offset `offset` (elements), in view order. */
  runs(offset: number, count: number): Run[] {
    checkCount('offset', offset);
    checkCount('count', count);
    // A pattern without holes is one run (walking it element by element would cost O(count)).
    if (this.perExtent === this.extent) return count === 0 ? [] : [{ offset: this.disp + offset * this.esize, bytes: count * this.esize }];
    const out: { offset: number; bytes: number }[] = [];
    const push = (at: number, bytes: number): void => {
      const last = out[out.length - 1];
      if (last !== undefined && last.offset + last.bytes === at) last.bytes += bytes;
      else out.push({ offset: at, bytes });
    };
    let p = offset;
    let left = count;
    while (left > 0) {
      const rep = Math.floor(p / this.perExtent);
      let within = p - rep * this.perExtent;
      for (const b of this.blocks) {
        if (within >= b.len) {
          within -= b.len;
          continue;
        }
        const n = Math.min(b.len - within, left);
        push(this.disp + (rep * this.extent + b.at + within) * this.esize, n * this.esize);
        left -= n;
        p += n;
        within = 0;
        if (left === 0) break;
      }
    }
    return out;
  }
}
