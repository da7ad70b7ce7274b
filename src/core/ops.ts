/**
 * Reduction operators. A reduction combines two element vectors, out[i] = a[i] ∘ b[i];
 * collectives fold the ranks' vectors in rank order (v0 ∘ v1 ∘ … ∘ vP−1) whenever
 * the operator is not commutative, so only the grouping (associativity) is free.
 *
 * Built-ins follow MPI: arithmetic on every scalar type, logical and bitwise on
 * integers only, MINLOC/MAXLOC on the value+index pair types (ties pick the
 * smaller index). `noop` does no computation (seed 000 uses it as a lower bound on
 * latency): out takes a's contents, so each element of the result is that element of
 * some rank's vector — not necessarily the same rank for every element (a ring
 * allreduce reduces each block in another order) — and identical on every rank.
 */
import { datatype, type Datatype, type DatatypeName, type TypedArray } from './datatypes.js';
import { OpError } from './errors.js';
import { KERNELS, type Kernel } from './kernels.generated.js';

export type { Kernel } from './kernels.generated.js';

export type BuiltinOpName =
  | 'sum'
  | 'prod'
  | 'min'
  | 'max'
  | 'land'
  | 'lor'
  | 'lxor'
  | 'band'
  | 'bor'
  | 'bxor'
  | 'minloc'
  | 'maxloc'
  | 'noop';

export const BUILTIN_OP_NAMES: readonly BuiltinOpName[] = Object.freeze([
  'sum', 'prod', 'min', 'max', 'land', 'lor', 'lxor', 'band', 'bor', 'bxor', 'minloc', 'maxloc', 'noop',
]);

export interface Op {
  readonly name: string;
  readonly commutative: boolean;
  readonly builtin: boolean;
  /** Whether the operator is defined for the datatype. */
  supports(type: Datatype): boolean;
  /** The kernel out = a ∘ b for this datatype; throws OpError when unsupported. */
  kernel(type: Datatype): Kernel;
}

function noopKernel(size: number): Kernel {
  return (out, a, _b, n) => {
    if (out.buffer === a.buffer && out.byteOffset === a.byteOffset) return;
    new Uint8Array(out.buffer, out.byteOffset, n * size).set(new Uint8Array(a.buffer, a.byteOffset, n * size));
  };
}

const WHAT: Record<BuiltinOpName, string> = {
  sum: 'integer and floating-point types',
  prod: 'integer and floating-point types',
  min: 'integer and floating-point types',
  max: 'integer and floating-point types',
  land: 'integer types',
  lor: 'integer types',
  lxor: 'integer types',
  band: 'integer types',
  bor: 'integer types',
  bxor: 'integer types',
  minloc: 'the pair types float32_int32, float64_int32, int32_int32, int64_int32',
  maxloc: 'the pair types float32_int32, float64_int32, int32_int32, int64_int32',
  noop: 'every datatype',
};

function builtin(name: BuiltinOpName): Op {
  const table = KERNELS[name];
  const noops = new Map<number, Kernel>();
  return Object.freeze({
    name,
    commutative: true,
    builtin: true,
    supports(type: Datatype): boolean {
      return name === 'noop' || table?.[type.name] !== undefined;
    },
    kernel(type: Datatype): Kernel {
      if (name === 'noop') {
        let k = noops.get(type.size);
        if (!k) noops.set(type.size, (k = noopKernel(type.size)));
        return k;
      }
      const k = table?.[type.name];
      if (!k) {
        throw new OpError(
          `operator '${name}' is not defined for datatype ${type.name}`,
          `'${name}' applies to ${WHAT[name]}`,
        );
      }
      return k;
    },
  });
}

const BUILTINS: ReadonlyMap<string, Op> = new Map(BUILTIN_OP_NAMES.map((n) => [n, builtin(n)]));
const USER_OPS = new Map<string, Op>();

/** Look up an operator by name (built-in or defined with defineOp), or pass an Op through. */
export function op(name: string | Op): Op {
  if (typeof name !== 'string') return name;
  const o = BUILTINS.get(name) ?? USER_OPS.get(name);
  if (!o) {
    throw new OpError(
      `unknown reduction operator '${name}'`,
      `use one of: ${[...BUILTIN_OP_NAMES, ...USER_OPS.keys()].join(', ')}, or define one with defineOp()`,
    );
  }
  return o;
}

/** Resolve and check an (operator, datatype) pair; throws OpError with the accepted types. */
export function resolveKernel(o: string | Op, type: DatatypeName | Datatype): Kernel {
  return op(o).kernel(datatype(type));
}

export interface UserOpDefinition {
  /** True if a ∘ b = b ∘ a; algorithms that reorder operands require it. */
  commutative: boolean;
  /** Datatypes the operator accepts (default: every scalar type). */
  datatypes?: readonly DatatypeName[];
  /**
   * Elementwise combination for scalar types: returns a ∘ b. Simple but calls a
   * function per element; use `kernel` for speed.
   */
  combine?: (a: number | bigint, b: number | bigint) => number | bigint;
  /** Vector form: out[i] = a[i] ∘ b[i] for i < n, over typed views of the datatype. */
  kernel?: (out: TypedArray, a: TypedArray, b: TypedArray, n: number, type: Datatype) => void;
}

/**
 * Define a reduction operator (MPI_Op_create). Every rank of a job must define the
 * same operator under the same name before using it.
 */
export function defineOp(name: string, def: UserOpDefinition): Op {
  if (!/^[A-Za-z_][\w.-]*$/.test(name)) {
    throw new OpError(`operator name '${name}' is invalid`, 'use letters, digits, _ . -, starting with a letter');
  }
  if (BUILTINS.has(name)) throw new OpError(`'${name}' is a built-in operator and cannot be redefined`);
  if (!def.combine === !def.kernel) {
    throw new OpError(`operator '${name}' needs exactly one of 'combine' or 'kernel'`);
  }
  const allowed = new Set<string>(def.datatypes ?? ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64']);
  const cache = new Map<string, Kernel>();
  const o: Op = Object.freeze({
    name,
    commutative: def.commutative,
    builtin: false,
    supports: (type: Datatype) => allowed.has(type.name) && type.kind !== 'pair',
    kernel(type: Datatype): Kernel {
      if (!o.supports(type)) {
        throw new OpError(`operator '${name}' is not defined for datatype ${type.name}`, `it accepts: ${[...allowed].join(', ')}`);
      }
      let k = cache.get(type.name);
      if (k) return k;
      const Ctor = type.valueArray;
      const view = (v: ArrayBufferView, n: number): TypedArray => new Ctor(v.buffer, v.byteOffset, n);
      if (def.kernel) {
        const user = def.kernel;
        k = (out, a, b, n) => user(view(out, n), view(a, n), view(b, n), n, type);
      } else {
        const combine = def.combine as (a: number | bigint, b: number | bigint) => number | bigint;
        k = (out, a, b, n) => {
          const ov = view(out, n) as unknown as { [i: number]: number | bigint };
          const av = view(a, n) as unknown as { [i: number]: number | bigint };
          const bv = view(b, n) as unknown as { [i: number]: number | bigint };
          for (let i = 0; i < n; i++) ov[i] = combine(av[i], bv[i]);
        };
      }
      cache.set(type.name, k);
      return k;
    },
  });
  USER_OPS.set(name, o);
  return o;
}

/** Remove a user-defined operator (tests). */
export function undefineOp(name: string): void {
  USER_OPS.delete(name);
}
