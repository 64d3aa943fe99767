/**
 * Generated .NET assemblies for tests without the shared data: a small PE builder and a
 * minimal ECMA-335 metadata builder (PE/COFF spec; ECMA-335 II.22, II.24, II.25), whose
 * output src/dotnet/assembly-identity.ts reads like a real DLL.
 */

/** Little-endian byte writer. */
class Writer {
  private buf = new Uint8Array(256);
  length = 0;
  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
  u8(v: number): this {
    this.ensure(1);
    this.buf[this.length++] = v & 0xff;
    return this;
  }
  u16(v: number): this {
    return this.u8(v).u8(v >>> 8);
  }
  u32(v: number): this {
    return this.u16(v & 0xffff).u16(v >>> 16);
  }
  /** A 2- or 4-byte index. */
  idx(v: number, size: number): this {
    return size === 4 ? this.u32(v) : this.u16(v);
  }
  bytes(b: Uint8Array | readonly number[]): this {
    for (const x of b) this.u8(x);
    return this;
  }
  zeros(n: number): this {
    this.ensure(n);
    this.length += n; // buffer is zero-filled
    return this;
  }
  ascii(s: string): this {
    return this.bytes(Buffer.from(s, 'latin1'));
  }
  align(n: number): this {
    while (this.length % n !== 0) this.u8(0);
    return this;
  }
  setU32(at: number, v: number): void {
    const save = this.length;
    this.length = at;
    this.u32(v);
    this.length = save;
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

export const SECTION_RVA = 0x2000;
export const FILE_ALIGN = 0x200;

export interface PeOptions {
  /** Contents of the single ".text" section (mapped at RVA 0x2000). */
  text?: Uint8Array;
  /** Data directory 14 (CLI header); omitted for a native image. */
  cliHeader?: { rva: number; size: number };
  pe32plus?: boolean;
  numberOfRvaAndSizes?: number;
}

/**
 * Builds a minimal PE image by hand (PE/COFF spec; ECMA-335 II.25.2): MS-DOS header with
 * e_lfanew = 0x40, "PE\0\0", COFF header for i386 (or AMD64), PE32 (or PE32+) optional header
 * with 16 data directories, one ".text" section at RVA 0x2000 / file offset 0x200.
 */
export function buildPe(opts: PeOptions = {}): Uint8Array {
  const text = opts.text ?? Uint8Array.of(0xc3); // `ret`
  const plus = opts.pe32plus ?? false;
  const optSize = plus ? 240 : 224;
  const rawSize = Math.ceil(text.length / FILE_ALIGN) * FILE_ALIGN;
  const w = new Writer();
  // MS-DOS header: "MZ", e_lfanew at 0x3c.
  w.ascii('MZ')
    .zeros(0x3c - 2)
    .u32(0x40);
  // PE signature + COFF file header (20 bytes).
  w.ascii('PE\0\0');
  w.u16(plus ? 0x8664 : 0x14c) // Machine
    .u16(1) // NumberOfSections
    .u32(0) // TimeDateStamp
    .u32(0) // PointerToSymbolTable
    .u32(0) // NumberOfSymbols
    .u16(optSize) // SizeOfOptionalHeader
    .u16(0x2102); // Characteristics: EXECUTABLE_IMAGE | 32BIT_MACHINE | DLL
  // Optional header.
  w.u16(plus ? 0x20b : 0x10b)
    .u8(8)
    .u8(0); // Magic, linker version
  w.u32(rawSize).u32(0).u32(0); // SizeOfCode, SizeOfInitializedData, SizeOfUninitializedData
  w.u32(0).u32(SECTION_RVA); // AddressOfEntryPoint, BaseOfCode
  if (plus)
    w.u32(0x10000000).u32(0); // ImageBase (64-bit)
  else w.u32(0).u32(0x10000000); // BaseOfData, ImageBase
  w.u32(0x2000).u32(FILE_ALIGN); // SectionAlignment, FileAlignment
  w.u16(4).u16(0).u16(0).u16(0).u16(4).u16(0); // OS / image / subsystem versions
  w.u32(0); // Win32VersionValue
  w.u32(SECTION_RVA + Math.ceil(Math.max(text.length, 1) / 0x2000) * 0x2000); // SizeOfImage
  w.u32(FILE_ALIGN); // SizeOfHeaders
  w.u32(0).u16(3).u16(0x8540); // CheckSum, Subsystem (console), DllCharacteristics
  for (let i = 0; i < 4; i++) {
    if (plus) w.u32(0x100000).u32(0);
    else w.u32(0x100000); // stack/heap reserve/commit
  }
  w.u32(0); // LoaderFlags
  w.u32(opts.numberOfRvaAndSizes ?? 16);
  for (let i = 0; i < 16; i++) {
    if (i === 14 && opts.cliHeader) w.u32(opts.cliHeader.rva).u32(opts.cliHeader.size);
    else w.u32(0).u32(0);
  }
  // Section table: ".text".
  w.ascii('.text\0\0\0').u32(text.length).u32(SECTION_RVA).u32(rawSize).u32(FILE_ALIGN);
  w.u32(0).u32(0).u16(0).u16(0).u32(0x60000020); // relocs, line numbers, characteristics
  w.zeros(FILE_ALIGN - w.length);
  w.bytes(text).zeros(rawSize - text.length);
  return w.done();
}

export interface TablesSpec {
  /** Tables before Assembly: explicit row count and (hand-computed, expected) row size. */
  before?: Record<number, { rows: number; rowSize: number }>;
  /** Row counts of tables after Assembly (declared in the header, data not emitted). */
  after?: Record<number, number>;
  /** HeapSizes flags (II.24.2.6): 1 = wide #Strings, 2 = wide #GUID, 4 = wide #Blob, 0x40 = extra data. */
  heapSizes?: number;
  /** Emit the Assembly row (false → a netmodule). */
  assembly?: boolean;
}

export interface AssemblySpec {
  name?: string;
  version?: [number, number, number, number];
  culture?: string;
  publicKey?: Uint8Array;
  tablesStreamName?: '#~' | '#-';
  tables?: TablesSpec;
  /** Raw bytes of the #Strings heap to use instead of the generated one. */
  rawStrings?: Uint8Array;
  /** Override the name's #Strings index. */
  nameIndex?: number;
}

/** ECMA-335 compressed unsigned integer (II.23.2), for blob lengths. */
function compressed(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x4000) return [0x80 | (n >> 8), n & 0xff];
  return [0xc0 | (n >>> 24), (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

/**
 * Builds the CLI part of a minimal assembly laid out from RVA `base`: CLI header (II.25.3.3),
 * metadata root (II.24.2.1), stream headers (II.24.2.2), #~, #Strings, #GUID, #Blob.
 */
export function buildCliPayload(base: number, spec: AssemblySpec): Uint8Array {
  const tables = spec.tables ?? {};
  const heapSizes = tables.heapSizes ?? 0;
  const strW = heapSizes & 1 ? 4 : 2;
  const blobW = heapSizes & 4 ? 4 : 2;

  // #Strings: "\0", then name, then culture.
  const strings = new Writer().u8(0);
  const put = (s: string): number => {
    if (s === '') return 0;
    const at = strings.length;
    strings.bytes(Buffer.from(s, 'utf8')).u8(0);
    return at;
  };
  const nameIdx = put(spec.name ?? 'Tiny.Assembly');
  const cultureIdx = put(spec.culture ?? '');
  const stringsHeap = spec.rawStrings ?? strings.align(4).done();

  // #Blob: "\0", then the public key.
  const blob = new Writer().u8(0);
  let keyIdx = 0;
  if (spec.publicKey && spec.publicKey.length > 0) {
    keyIdx = blob.length;
    blob.bytes(compressed(spec.publicKey.length)).bytes(spec.publicKey);
  }
  const blobHeap = blob.align(4).done();
  const guidHeap = new Uint8Array(16).fill(0x11);

  // #~ stream.
  const rows = new Map<number, number>();
  for (const [t, v] of Object.entries(tables.before ?? {})) rows.set(Number(t), v.rows);
  if (tables.assembly ?? true) rows.set(0x20, 1);
  for (const [t, n] of Object.entries(tables.after ?? {})) rows.set(Number(t), n);
  let validLo = 0;
  let validHi = 0;
  for (const t of rows.keys()) {
    if (t < 32) validLo |= 1 << t;
    else validHi |= 1 << (t - 32);
  }
  const ts = new Writer().u32(0).u8(2).u8(0).u8(heapSizes).u8(1);
  ts.u32(validLo >>> 0)
    .u32(validHi >>> 0)
    .u32(0)
    .u32(0);
  for (const t of [...rows.keys()].sort((a, b) => a - b)) ts.u32(rows.get(t) as number);
  if (heapSizes & 0x40) ts.u32(0xdeadbeef);
  for (const t of Object.keys(tables.before ?? {})
    .map(Number)
    .sort((a, b) => a - b)) {
    const { rows: n, rowSize } = (tables.before ?? {})[t] as { rows: number; rowSize: number };
    ts.zeros(n * rowSize); // zero rows: every index 0 = null, which readers accept
  }
  if (tables.assembly ?? true) {
    const [a, b, c, d] = spec.version ?? [1, 2, 3, 4];
    ts.u32(0x8004)
      .u16(a)
      .u16(b)
      .u16(c)
      .u16(d)
      .u32(keyIdx ? 1 : 0);
    ts.idx(keyIdx, blobW)
      .idx(spec.nameIndex ?? nameIdx, strW)
      .idx(cultureIdx, strW);
  }
  const tablesStream = ts.align(4).done();

  // Metadata root + stream headers.
  const streams: [string, Uint8Array][] = [
    [spec.tablesStreamName ?? '#~', tablesStream],
    ['#Strings', stringsHeap],
    ['#GUID', guidHeap],
    ['#Blob', blobHeap],
  ];
  const version = 'v4.0.30319\0\0';
  const md = new Writer().u32(0x424a5342).u16(1).u16(1).u32(0).u32(version.length).ascii(version);
  md.u16(0).u16(streams.length);
  const offsetSlots: number[] = [];
  for (const [name, data] of streams) {
    offsetSlots.push(md.length);
    md.u32(0).u32(data.length).ascii(name).u8(0).align(4);
  }
  streams.forEach(([, data], i) => {
    md.align(4);
    md.setU32(offsetSlots[i] as number, md.length);
    md.bytes(data);
  });
  const metadata = md.done();

  // CLI header (72 bytes) followed by the metadata.
  const cli = new Writer()
    .u32(72)
    .u16(2)
    .u16(5)
    .u32(base + 72)
    .u32(metadata.length)
    .u32(1);
  cli.zeros(72 - cli.length);
  return cli.bytes(metadata).done();
}

/** A complete minimal .NET-like DLL. */
export function buildAssembly(spec: AssemblySpec = {}, pe: Omit<PeOptions, 'text' | 'cliHeader'> = {}): Uint8Array {
  return buildPe({ ...pe, text: buildCliPayload(SECTION_RVA, spec), cliHeader: { rva: SECTION_RVA, size: 72 } });
}

// The 16-byte "ECMA key" whose token is the well-known b77a5c561934e089 (II.6.2.1.3).
export const ECMA_KEY = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0]);
export const MODULE_ROW = { rows: 1, rowSize: 10 }; // Generation(2) Name(2) Mvid(2) EncId(2) EncBaseId(2)
