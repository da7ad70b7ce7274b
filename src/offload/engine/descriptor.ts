/**
 * Collective descriptors for the per-node offload engine (seed 000 §3.3, F10–F11).
 *
 * As in the thesis, the small fields are packed into ONE 32-bit control word with
 * bit masks, and the sizes travel as separate words. A descriptor occupies
 * DESCRIPTOR_WORDS consecutive Int32 words of a SharedArrayBuffer:
 *
 *   word 0  control   bits  0..3   collective kind  (index into COLLECTIVES)
 *                     bits  4..7   reduction op     (index into BUILTIN_OP_NAMES)
 *                     bits  8..11  datatype         (index into DATATYPE_NAMES)
 *                     bits 12..15  channel          (0..15: "8 or 16 channels")
 *                     bits 16..20  cache slot       (0..31: "16 or 32 cache slots")
 *                     bit  21      in-place         (send buffer is the recv buffer)
 *                     bit  22      mode             (0 all-NIC, 1 intermediate-only, F12)
 *                     bits 23..24  command          (0 run a collective, 1 register a communicator,
 *                                                    2 release the poster's registration of one)
 *                     bits 25..31  reserved, must be zero
 *   word 1  count       elements (0..2^31−1); for 'register': the communicator's size
 *   word 2  root        rank (0..2^31−1; 0 for rootless collectives); for 'register': the poster's rank
 *   word 3  sendOffset  byte offset of the send buffer in the shared arena; for 'register': of the
 *                       Int32 list of the communicator's world ranks
 *   word 4  recvOffset  byte offset of the recv buffer in the shared arena
 *   word 5  tag         the communicator's collective sequence number; for 'register' and
 *                       'release': its context id
 *   word 6  timeoutMs   0 = none
 *   word 7  options     arena offset of the call's options (u32 length + UTF-8 JSON), 0 = defaults
 *
 * Only built-in operators are encodable (user-defined ops live in one thread's heap).
 * Out-of-range fields throw ArgumentError / OpError / DatatypeError naming the value
 * and the accepted range; decoding a word with reserved bits or unknown indices throws too.
 */
import { ArgumentError, DatatypeError, OpError } from '../../core/errors.js';
import { DATATYPE_NAMES, type DatatypeName } from '../../core/datatypes.js';
import { BUILTIN_OP_NAMES, type BuiltinOpName } from '../../core/ops.js';
import { COLLECTIVES, type CollectiveKind } from '../../schedule/types.js';

/** Int32 words per descriptor. */
export const DESCRIPTOR_WORDS = 8;

export const KIND_SHIFT = 0;
export const OP_SHIFT = 4;
export const DATATYPE_SHIFT = 8;
export const CHANNEL_SHIFT = 12;
export const SLOT_SHIFT = 16;
export const IN_PLACE_BIT = 1 << 21;
export const MODE_BIT = 1 << 22;
export const COMMAND_SHIFT = 23;
const NIBBLE = 0xf;
const SLOT_MASK = 0x1f;
export const RESERVED_MASK = ~((1 << 25) - 1); // bits 25..31

/** Number of channels and cache slots the control word can name. */
export const MAX_CHANNELS = 16;
export const MAX_CACHE_SLOTS = 32;
/** Largest count / root / offset (words are signed 32-bit; negatives are rejected). */
export const MAX_WORD = 0x7fffffff;

export type EngineMode = 'all-nic' | 'intermediate-only';
/**
 * 'collective': run one; 'register': cache a communicator (answer: its cache slot);
 * 'release': drop the poster's registration (comm.free()); the slot is reused once
 * every rank that registered it has released it.
 */
export type EngineCommand = 'collective' | 'register' | 'release';
const COMMANDS: readonly EngineCommand[] = ['collective', 'register', 'release'];

export interface Descriptor {
  readonly kind: CollectiveKind;
  /** Reduction operator; 'noop' for collectives that do not reduce. */
  readonly op: BuiltinOpName;
  readonly datatype: DatatypeName;
  readonly channel: number;
  readonly cacheSlot: number;
  readonly inPlace: boolean;
  readonly mode: EngineMode;
  readonly command: EngineCommand;
  readonly count: number;
  readonly root: number;
  readonly sendOffset: number;
  readonly recvOffset: number;
  readonly tag: number;
  readonly timeoutMs: number;
  readonly options: number;
}

// The 4-bit fields must be able to index every name; fail loudly at load if a list grows.
for (const [what, list] of [['COLLECTIVES', COLLECTIVES], ['BUILTIN_OP_NAMES', BUILTIN_OP_NAMES], ['DATATYPE_NAMES', DATATYPE_NAMES]] as const) {
  if (list.length > NIBBLE + 1) throw new Error(`offload descriptor: ${what} has ${list.length} entries, the 4-bit field holds 16`);
}

function checkRange(name: string, v: number, max: number): void {
  if (!Number.isInteger(v) || v < 0 || v > max) {
    throw new ArgumentError(`descriptor ${name} must be an integer in 0..${max}, got ${String(v)}`);
  }
}

function indexOf<T extends string>(list: readonly T[], v: T, name: string): number {
  const i = list.indexOf(v);
  if (i < 0) {
    const msg = `descriptor ${name} '${String(v)}' is not encodable`;
    const hint = `use one of: ${list.join(', ')}`;
    if (name === 'op') throw new OpError(msg, `${hint} (user-defined operators cannot be offloaded)`);
    if (name === 'datatype') throw new DatatypeError(msg, hint);
    throw new ArgumentError(msg, hint);
  }
  return i;
}

/** Validate a descriptor and pack its small fields into the control word. */
export function encodeControl(d: Descriptor): number {
  const k = indexOf(COLLECTIVES, d.kind, 'kind');
  const o = indexOf(BUILTIN_OP_NAMES, d.op, 'op');
  const t = indexOf(DATATYPE_NAMES, d.datatype, 'datatype');
  checkRange('channel', d.channel, MAX_CHANNELS - 1);
  checkRange('cacheSlot', d.cacheSlot, MAX_CACHE_SLOTS - 1);
  if (d.mode !== 'all-nic' && d.mode !== 'intermediate-only') {
    throw new ArgumentError(`descriptor mode '${String(d.mode)}' is unknown`, "use 'all-nic' or 'intermediate-only'");
  }
  const command = indexOf(COMMANDS, d.command, 'command');
  return (
    (k << KIND_SHIFT) |
    (o << OP_SHIFT) |
    (t << DATATYPE_SHIFT) |
    (d.channel << CHANNEL_SHIFT) |
    (d.cacheSlot << SLOT_SHIFT) |
    (d.inPlace ? IN_PLACE_BIT : 0) |
    (d.mode === 'intermediate-only' ? MODE_BIT : 0) |
    (command << COMMAND_SHIFT)
  );
}

function pick<T>(list: readonly T[], i: number, name: string, word: number): T {
  const v = list[i];
  if (v === undefined) {
    throw new ArgumentError(`descriptor control word 0x${(word >>> 0).toString(16)} has ${name} index ${i}, accepted 0..${list.length - 1}`);
  }
  return v;
}

/** The small fields of a control word (without count/root/offsets). */
export type ControlFields = Pick<Descriptor, 'kind' | 'op' | 'datatype' | 'channel' | 'cacheSlot' | 'inPlace' | 'mode' | 'command'>;

/** Decoded control words: a node's engine sees few distinct ones, so decoding is cached. */
const decoded = new Map<number, ControlFields>();

export function decodeControl(word: number): ControlFields {
  const hit = decoded.get(word);
  if (hit !== undefined) return hit;
  const fields = decodeUncached(word);
  if (decoded.size >= 4096) decoded.clear();
  decoded.set(word, fields);
  return fields;
}

function decodeUncached(word: number): ControlFields {
  if ((word & RESERVED_MASK) !== 0) {
    throw new ArgumentError(`descriptor control word 0x${(word >>> 0).toString(16)} has reserved bits 25..31 set`);
  }
  return Object.freeze({
    kind: pick(COLLECTIVES, (word >>> KIND_SHIFT) & NIBBLE, 'kind', word),
    op: pick(BUILTIN_OP_NAMES, (word >>> OP_SHIFT) & NIBBLE, 'op', word),
    datatype: pick(DATATYPE_NAMES, (word >>> DATATYPE_SHIFT) & NIBBLE, 'datatype', word),
    channel: (word >>> CHANNEL_SHIFT) & NIBBLE,
    cacheSlot: (word >>> SLOT_SHIFT) & SLOT_MASK,
    inPlace: (word & IN_PLACE_BIT) !== 0,
    mode: (word & MODE_BIT) !== 0 ? 'intermediate-only' : 'all-nic',
    command: pick(COMMANDS, (word >>> COMMAND_SHIFT) & 3, 'command', word),
  });
}

function checkIndex(i32: Int32Array, index: number): void {
  if (!Number.isInteger(index) || index < 0 || index + DESCRIPTOR_WORDS > i32.length) {
    throw new ArgumentError(`descriptor index ${index} does not fit an Int32Array of ${i32.length} words (needs ${DESCRIPTOR_WORDS})`);
  }
}

/**
 * Validate and write a descriptor at Int32 index `index`. Plain stores: publish it
 * with a release store of a separate word (see doorbell.ts), as the engine reads it
 * only after an acquire load of that word.
 */
export function writeDescriptor(i32: Int32Array, index: number, d: Descriptor): void {
  checkIndex(i32, index);
  const control = encodeControl(d);
  checkRange('count', d.count, MAX_WORD);
  checkRange('root', d.root, MAX_WORD);
  checkRange('sendOffset', d.sendOffset, MAX_WORD);
  checkRange('recvOffset', d.recvOffset, MAX_WORD);
  checkRange('tag', d.tag, MAX_WORD);
  checkRange('timeoutMs', d.timeoutMs, MAX_WORD);
  checkRange('options', d.options, MAX_WORD);
  i32[index] = control;
  i32[index + 1] = d.count;
  i32[index + 2] = d.root;
  i32[index + 3] = d.sendOffset;
  i32[index + 4] = d.recvOffset;
  i32[index + 5] = d.tag;
  i32[index + 6] = d.timeoutMs;
  i32[index + 7] = d.options;
}

/** Read and validate the descriptor at Int32 index `index`. */
export function readDescriptor(i32: Int32Array, index: number): Descriptor {
  checkIndex(i32, index);
  const c = decodeControl(i32[index]);
  const word = (k: number, name: string): number => {
    const v = i32[index + k];
    checkRange(name, v, MAX_WORD);
    return v;
  };
  return {
    ...c,
    count: word(1, 'count'),
    root: word(2, 'root'),
    sendOffset: word(3, 'sendOffset'),
    recvOffset: word(4, 'recvOffset'),
    tag: word(5, 'tag'),
    timeoutMs: word(6, 'timeoutMs'),
    options: word(7, 'options'),
  };
}
