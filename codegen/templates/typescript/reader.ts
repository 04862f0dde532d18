// The reader of masterctl's client format (docs/CLIENT-FORMAT.md) that the generated
// `masters.ts` imports: a build's files opened as views (nothing copied), their columns,
// cells, and the comparisons lookups use. The same for every project: written as it is
// by `masterctl codegen --lang typescript`.
/** Reads one file of a build by its path there (`client/tables/item.bin`). */
export type ReadFile = (path: string) => Uint8Array | ArrayBuffer;

/** A build that does not match this code, or a damaged file. */
export class MastersError extends Error {}

const textDecoder = new TextDecoder("utf-8");

/** A column's parts, as views into its file. */
export interface Column {
  readonly name: string;
  readonly type: number;
  readonly values: readonly string[];
  readonly nulls: Uint8Array | null;
  readonly offsets: Uint32Array | null;
  readonly ints: Int32Array | null;
  readonly floats: Float64Array | null;
  readonly bytes: Uint8Array | null;
  readonly ends: Uint32Array | null;
  /** A string column's text, decoded in one call the first time a cell is read, and
   * where each string starts in it (UTF-16 units). */
  text: { whole: string; starts: Uint32Array } | null;
}

/** One client file, its header read and its parts viewed (nothing copied); refused
 * unless made from the schemas `schemaHash` names. */
export class ClientFile {
  readonly rows: number;
  private readonly columns = new Map<string, Column>();

  constructor(input: Uint8Array | ArrayBuffer, path: string, kind: number, schemaHash: string) {
    let bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
    if (bytes.byteOffset % 8 !== 0) {
      bytes = bytes.slice();
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    const fail = (why: string): never => {
      throw new MastersError(`${path}: ${why}`);
    };
    const need = (n: number): void => {
      if (at + n > bytes.byteLength) fail("cut short");
    };
    const u8 = (): number => { need(1); return view.getUint8(at++); };
    const u16 = (): number => { need(2); const v = view.getUint16(at, true); at += 2; return v; };
    const u32 = (): number => { need(4); const v = view.getUint32(at, true); at += 4; return v; };
    const str = (): string => {
      const n = u32();
      need(n);
      const text = textDecoder.decode(bytes.subarray(at, at + n));
      at += n;
      return text;
    };
    const align = (): void => { at = (at + 7) & ~7; };
    const part = (size: number, count: number): number => {
      align();
      need(size * count);
      const start = at;
      at += size * count;
      return bytes.byteOffset + start;
    };
    if (bytes.byteLength < 8 || textDecoder.decode(bytes.subarray(0, 4)) !== "MCCL") fail("not a client export file");
    at = 4;
    if (u16() !== 1) fail("a client export of another version");
    if (u16() !== kind) fail("not the kind of file expected here");
    const hash = str();
    if (hash !== schemaHash) fail(`made from the schemas ${hash}, this code from ${schemaHash}: generate the code again`);
    str();
    str();
    this.rows = u32();
    const count = u32();
    const headers: { name: string; type: number; flags: number; values: string[] }[] = [];
    for (let i = 0; i < count; i++) {
      const name = str();
      const type = u8();
      const flags = u8();
      u16();
      const values: string[] = [];
      if (type === 7) {
        const n = u32();
        for (let v = 0; v < n; v++) values.push(str());
      }
      headers.push({ name, type, flags, values });
    }
    const buffer = bytes.buffer;
    for (const h of headers) {
      const rows = this.rows;
      const nulls = h.flags & 2 ? new Uint8Array(buffer, part(8, Math.ceil(rows / 64)), Math.ceil(rows / 64) * 8) : null;
      const offsets = h.flags & 1 ? new Uint32Array(buffer, part(4, rows + 1), rows + 1) : null;
      const n = offsets ? offsets[rows] : rows;
      if (offsets && !ascending(offsets, n)) fail(`column ${h.name}: its list offsets are out of order`);
      let ints: Int32Array | null = null;
      let floats: Float64Array | null = null;
      let data: Uint8Array | null = null;
      let ends: Uint32Array | null = null;
      switch (h.type) {
        case 1: case 6: ints = new Int32Array(buffer, part(8, n), n * 2); break;
        case 2: floats = new Float64Array(buffer, part(8, n), n); break;
        case 3: data = new Uint8Array(buffer, part(1, n), n); break;
        case 5: ints = new Int32Array(buffer, part(4, n), n); break;
        case 7:
          ends = new Uint32Array(buffer, part(4, n), n);
          if (ends.some((v) => v >= h.values.length)) fail(`column ${h.name}: a value outside its enum`);
          break;
        case 4: {
          ends = new Uint32Array(buffer, part(4, n), n);
          const size = n > 0 ? ends[n - 1] : 0;
          need(size);
          if (!ascending(ends, size)) fail(`column ${h.name}: its string ends are out of order`);
          data = new Uint8Array(buffer, bytes.byteOffset + at, size);
          at += size;
          break;
        }
        default: fail(`column ${h.name} has an unknown type ${h.type}`);
      }
      if (h.flags & 4) part(1, rows);
      this.columns.set(h.name, { name: h.name, type: h.type, values: h.values, nulls, offsets, ints, floats, bytes: data, ends, text: null });
    }
  }

  column(name: string, type: number, path: string): Column {
    const column = this.columns.get(name);
    if (!column || (column.type !== type && !(type === 4 && column.type === 7))) {
      throw new MastersError(`${path}: no column ${name} of type ${type}`);
    }
    return column;
  }

  /** A column of a generated master, whatever type its values gave it. */
  any(name: string, path: string): Column {
    const column = this.columns.get(name);
    if (!column) throw new MastersError(`${path}: no column ${name}`);
    return column;
  }
}

/** No value smaller than the one before, the last at most `limit`. */
function ascending(values: Uint32Array, limit: number): boolean {
  let previous = 0;
  for (let i = 0; i < values.length; i++) {
    if (values[i] < previous) return false;
    previous = values[i];
  }
  return previous <= limit;
}

/** Null first, then by value (numbers, strings, dates, booleans). */
export function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  const x = a instanceof Date ? a.getTime() : (a as number | string);
  const y = b instanceof Date ? b.getTime() : (b as number | string);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The text a key's values are looked up by. */
export function keyText(values: unknown[]): string {
  return values.map((v) => String(v)).join("\u001f");
}

/** Rows of a file grouped by the text of some of their columns, in file order. */
export function groupRows(columns: Column[], rows: number): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (let i = 0; i < rows; i++) {
    const key = keyText(columns.map((c) => cell(c, i)));
    let list = groups.get(key);
    if (list === undefined) groups.set(key, (list = []));
    list.push(i);
  }
  return groups;
}

function isNull(c: Column, row: number): boolean {
  return c.nulls !== null && (c.nulls[row >> 3] & (1 << (row & 7))) !== 0;
}

export function element(c: Column, i: number): number | boolean | string | Date {
  switch (c.type) {
    case 1: { const ints = c.ints as Int32Array; return ints[2 * i + 1] * 4294967296 + (ints[2 * i] >>> 0); }
    case 2: return (c.floats as Float64Array)[i];
    case 3: return (c.bytes as Uint8Array)[i] === 1;
    case 5: return new Date((c.ints as Int32Array)[i] * 86400000);
    case 6: { const ints = c.ints as Int32Array; return new Date(ints[2 * i + 1] * 4294967296 + (ints[2 * i] >>> 0)); }
    case 7: return c.values[(c.ends as Uint32Array)[i]];
    default: {
      const text = c.text ?? (c.text = decodeColumn(c.bytes as Uint8Array, c.ends as Uint32Array));
      return text.whole.substring(text.starts[i], text.starts[i + 1]);
    }
  }
}

/** All strings of a column decoded at once, and their starts in UTF-16 units (one more
 * than the strings: the end). */
function decodeColumn(bytes: Uint8Array, ends: Uint32Array): { whole: string; starts: Uint32Array } {
  const whole = textDecoder.decode(bytes);
  const starts = new Uint32Array(ends.length + 1);
  if (whole.length === bytes.length) {
    // ASCII alone: a byte is a UTF-16 unit.
    starts.set(ends, 1);
    return { whole, starts };
  }
  let units = 0;
  let at = 0;
  for (let i = 0; i < ends.length; i++) {
    starts[i] = units;
    for (const end = ends[i]; at < end; at++) units += UTF16_UNITS[bytes[at]];
  }
  starts[ends.length] = units;
  return { whole, starts };
}

/** The UTF-16 units a UTF-8 byte starts: 1 for a one- to three-byte code point's lead,
 * 2 for a four-byte one's, 0 for a continuation byte. */
const UTF16_UNITS = Uint8Array.from({ length: 256 }, (_, b) => ((b & 0xc0) === 0x80 ? 0 : b >= 0xf0 ? 2 : 1));

/** A map cell: its keys' column and its values' column, read together. */
export function mapCell<K, V>(keys: Column, values: Column, row: number): Map<K, V> | null {
  if (isNull(keys, row) || keys.offsets === null) return null;
  const map = new Map<K, V>();
  for (let i = keys.offsets[row]; i < keys.offsets[row + 1]; i++) {
    map.set(element(keys, i) as K, element(values, i) as V);
  }
  return map;
}

export function cell<T>(c: Column, row: number): T | null {
  if (isNull(c, row)) return null;
  if (c.offsets === null) return element(c, row) as T;
  const list: unknown[] = [];
  for (let i = c.offsets[row]; i < c.offsets[row + 1]; i++) list.push(element(c, i));
  return list as T;
}
