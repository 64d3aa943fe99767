/**
 * Reads a .NET assembly's identity (name, version, culture, public key token)
 * straight from the bytes of a DLL/EXE, without loading or running it.
 *
 * The PE container (DOS header, NT headers, section table, data directory 14 =
 * CLI header) is read with `pe-library`'s header classes; the CLI part follows
 * ECMA-335 6th edition, Partition II (sections cited as II.x.y below).
 *
 * `pe-library`'s `NtExecutable.from` is deliberately not used: it refuses
 * Authenticode-signed files unless told otherwise, refuses images with COFF
 * symbols, copies every section (allocating whatever size a damaged header
 * claims), and throws bare TypeError/RangeError on bad input. Its header views
 * also trust the buffer, so the sizes are checked here before it reads them.
 *
 * Every read is bounds-checked here first, so malformed input only ever raises
 * {@link NotAnAssemblyError}, never a RangeError/TypeError from a DataView.
 */
import { Format } from 'pe-library';
import { publicKeyToken } from './strong-name.js';

/** The identity of an assembly as written in its Assembly table row (II.22.2). */
export interface AssemblyIdentity {
  /** Simple name, e.g. "System.Xml.Linq". */
  name: string;
  /** "Major.Minor.Build.Revision", e.g. "4.0.0.0". */
  version: string;
  /** Culture name, or "neutral" when the Culture column is empty. */
  culture: string;
  /** 16 lowercase hex digits, or "" when the assembly is not strong-named. */
  publicKeyToken: string;
}

/** Thrown when the bytes are not a readable .NET assembly; the message says why. */
export class NotAnAssemblyError extends Error {
  override name = 'NotAnAssemblyError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

function fail(reason: string): never {
  throw new NotAnAssemblyError(reason);
}

const hex = (n: number): string => `0x${n.toString(16)}`;

/** A bounds-checked little-endian view over `bytes[start, end)`. */
class Region {
  constructor(
    private readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
    /** What this region is, for error messages ("the #~ stream"). */
    readonly what: string,
  ) {}

  get length(): number {
    return this.end - this.start;
  }

  /** Throws unless `[off, off + n)` (relative) lies inside this region. */
  check(off: number, n: number, what: string): void {
    if (!(off >= 0 && n >= 0 && off + n <= this.length)) {
      // Past the end of the file itself → truncated; otherwise the structure
      // claims more than its container holds → malformed.
      if (this.end >= this.bytes.length && this.start + off + n > this.bytes.length) {
        fail(`truncated: ${what} extends past end of file`);
      }
      fail(`malformed: ${what} extends past the end of ${this.what}`);
    }
  }

  u8(off: number, what: string): number {
    this.check(off, 1, what);
    return this.bytes[this.start + off] as number;
  }

  u16(off: number, what: string): number {
    this.check(off, 2, what);
    const p = this.start + off;
    return (this.bytes[p] as number) | ((this.bytes[p + 1] as number) << 8);
  }

  u32(off: number, what: string): number {
    this.check(off, 4, what);
    const p = this.start + off;
    return (
      ((this.bytes[p] as number) |
        ((this.bytes[p + 1] as number) << 8) |
        ((this.bytes[p + 2] as number) << 16) |
        ((this.bytes[p + 3] as number) << 24)) >>>
      0
    );
  }

  /** Reads an index that is 2 or 4 bytes wide. */
  index(off: number, size: number, what: string): number {
    return size === 2 ? this.u16(off, what) : this.u32(off, what);
  }

  slice(off: number, n: number, what: string): Uint8Array {
    this.check(off, n, what);
    return this.bytes.subarray(this.start + off, this.start + off + n);
  }

  /** A sub-region `[off, off + n)`; checked against this region. */
  sub(off: number, n: number, what: string): Region {
    this.check(off, n, what);
    return new Region(this.bytes, this.start + off, this.start + off + n, what);
  }
}

interface Section {
  name: string;
  virtualAddress: number;
  virtualSize: number;
  pointerToRawData: number;
  sizeOfRawData: number;
}

interface PeImage {
  cliHeader: { rva: number; size: number };
  sections: Section[];
  sizeOfHeaders: number;
}

/** PE/COFF headers (Microsoft PE/COFF specification §2–§4; ECMA-335 II.25.2). */
function readPe(bytes: Uint8Array): PeImage {
  if (bytes.length === 0) fail('not a PE file (the file is empty)');
  // II.25.2.1: MS-DOS header, starts with "MZ".
  if (bytes.length < 2 || bytes[0] !== 0x4d || bytes[1] !== 0x5a) {
    fail('not a PE file (no MZ header)');
  }
  const file = new Region(bytes, 0, bytes.length, 'the file');
  file.check(0, 64, 'the MS-DOS header');
  const lfanew = file.u32(0x3c, 'the MS-DOS header');
  // "PE\0\0" signature, then the 20-byte COFF file header (II.25.2.2).
  if (lfanew + 4 > bytes.length) {
    fail(`truncated: the PE header at offset ${hex(lfanew)} extends past end of file`);
  }
  if (file.u32(lfanew, 'the PE signature') !== 0x00004550) {
    fail(`not a PE file (MZ header but no "PE" signature at offset ${hex(lfanew)}; an MS-DOS program?)`);
  }
  const coff = lfanew + 4;
  file.check(coff, 20, 'the COFF file header');
  const numberOfSections = file.u16(coff + 2, 'the COFF file header');
  const sizeOfOptionalHeader = file.u16(coff + 16, 'the COFF file header');
  const opt = coff + 20;
  // II.25.2.3: optional header; magic 0x10b = PE32, 0x20b = PE32+.
  const magic = file.u16(opt, 'the PE optional header');
  let dataDirOffset: number; // offset of the data directories inside the optional header
  if (magic === 0x10b) dataDirOffset = 96;
  else if (magic === 0x20b) dataDirOffset = 112;
  else return fail(`malformed PE: unknown optional header magic ${hex(magic)}`);
  // pe-library reads the fixed-size optional header plus all 16 data directories.
  file.check(opt, dataDirOffset + 16 * 8, 'the PE optional header');

  const sectionTable = opt + sizeOfOptionalHeader;
  file.check(sectionTable, numberOfSections * 40, 'the section table');
  const cliIndex = Format.ImageDirectoryEntry.ComDescriptor;
  let numberOfRvaAndSizes: number;
  let cliDir: { virtualAddress: number; size: number };
  let sizeOfHeaders: number;
  const sections: Section[] = [];
  try {
    // All of these views lie inside the ranges checked above.
    const peHeaders = Format.ImageNtHeaders.from(bytes, lfanew);
    numberOfRvaAndSizes = peHeaders.optionalHeader.numberOfRvaAndSizes;
    sizeOfHeaders = peHeaders.optionalHeader.sizeOfHeaders >>> 0;
    cliDir = peHeaders.optionalHeaderDataDirectory.get(cliIndex);
    // The section table follows the optional header *as sized by the COFF header*
    // (pe-library's own getSectionHeaderOffset assumes the default size).
    const sectionHeaders = Format.ImageSectionHeaderArray.from(
      bytes.buffer as ArrayBuffer,
      numberOfSections,
      bytes.byteOffset + sectionTable,
    );
    for (let i = 0; i < numberOfSections; i++) {
      const s = sectionHeaders.get(i);
      sections.push({
        name: s.name,
        virtualAddress: s.virtualAddress >>> 0,
        virtualSize: s.virtualSize >>> 0,
        pointerToRawData: s.pointerToRawData >>> 0,
        sizeOfRawData: s.sizeOfRawData >>> 0,
      });
    }
  } catch (e) {
    // Not expected after the checks above; keep the "only NotAnAssemblyError" promise.
    return fail(`malformed PE headers (${e instanceof Error ? e.message : String(e)})`);
  }
  // Data directory 14 is the CLI header (II.25.2.3.3); absent → a native image.
  if (
    numberOfRvaAndSizes <= cliIndex ||
    sizeOfOptionalHeader < dataDirOffset + (cliIndex + 1) * 8 ||
    cliDir.virtualAddress === 0 ||
    cliDir.size === 0
  ) {
    fail('a native PE file with no CLI header (not a .NET assembly)');
  }
  return { cliHeader: { rva: cliDir.virtualAddress >>> 0, size: cliDir.size >>> 0 }, sections, sizeOfHeaders };
}

/** Maps `[rva, rva + size)` to a bounds-checked file region (II.25: RVA → file offset via the section table). */
function mapRva(bytes: Uint8Array, pe: PeImage, rva: number, size: number, what: string): Region {
  const file = new Region(bytes, 0, bytes.length, 'the file');
  for (const s of pe.sections) {
    const extent = Math.max(s.virtualSize, s.sizeOfRawData);
    if (rva >= s.virtualAddress && rva - s.virtualAddress < extent) {
      const delta = rva - s.virtualAddress;
      const offset = s.pointerToRawData + delta;
      if (offset + size > bytes.length) {
        fail(`truncated: ${what} (file offset ${hex(offset)}, ${size} bytes) extends past end of file`);
      }
      if (delta + size > s.sizeOfRawData) {
        fail(`malformed: ${what} (RVA ${hex(rva)}, ${size} bytes) extends past the raw data of section "${s.name}"`);
      }
      return file.sub(offset, size, what);
    }
  }
  if (rva + size <= pe.sizeOfHeaders) return file.sub(rva, size, what); // headers map 1:1
  return fail(`malformed: ${what} (RVA ${hex(rva)}) is not inside any section`);
}

/** Decodes UTF-8 strictly; bad bytes are a malformed-file error, not a TypeError. */
function utf8(data: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return fail(`malformed: ${what} is not valid UTF-8`);
  }
}

// Metadata table numbers (II.22, II.24.2.6).
const T = {
  Module: 0x00,
  TypeRef: 0x01,
  TypeDef: 0x02,
  FieldPtr: 0x03,
  Field: 0x04,
  MethodPtr: 0x05,
  MethodDef: 0x06,
  ParamPtr: 0x07,
  Param: 0x08,
  InterfaceImpl: 0x09,
  MemberRef: 0x0a,
  Constant: 0x0b,
  CustomAttribute: 0x0c,
  FieldMarshal: 0x0d,
  DeclSecurity: 0x0e,
  ClassLayout: 0x0f,
  FieldLayout: 0x10,
  StandAloneSig: 0x11,
  EventMap: 0x12,
  EventPtr: 0x13,
  Event: 0x14,
  PropertyMap: 0x15,
  PropertyPtr: 0x16,
  Property: 0x17,
  MethodSemantics: 0x18,
  MethodImpl: 0x19,
  ModuleRef: 0x1a,
  TypeSpec: 0x1b,
  ImplMap: 0x1c,
  FieldRVA: 0x1d,
  ENCLog: 0x1e,
  ENCMap: 0x1f,
  Assembly: 0x20,
  AssemblyRef: 0x23,
  File: 0x26,
  ExportedType: 0x27,
  ManifestResource: 0x28,
  GenericParam: 0x2a,
  MethodSpec: 0x2b,
  GenericParamConstraint: 0x2c,
} as const;

/**
 * Coded index kinds (II.24.2.6): tag bit count and the tables they can point at
 * (-1 = an unused tag value). Only those used by tables 0x00..0x20 are needed
 * (Implementation and TypeOrMethodDef first appear in later tables).
 */
const CODED: Record<string, { bits: number; tables: readonly number[] }> = {
  TypeDefOrRef: { bits: 2, tables: [T.TypeDef, T.TypeRef, T.TypeSpec] },
  HasConstant: { bits: 2, tables: [T.Field, T.Param, T.Property] },
  HasCustomAttribute: {
    bits: 5,
    tables: [
      T.MethodDef,
      T.Field,
      T.TypeRef,
      T.TypeDef,
      T.Param,
      T.InterfaceImpl,
      T.MemberRef,
      T.Module,
      T.DeclSecurity,
      T.Property,
      T.Event,
      T.StandAloneSig,
      T.ModuleRef,
      T.TypeSpec,
      T.Assembly,
      T.AssemblyRef,
      T.File,
      T.ExportedType,
      T.ManifestResource,
      T.GenericParam,
      T.GenericParamConstraint,
      T.MethodSpec,
    ],
  },
  HasFieldMarshal: { bits: 1, tables: [T.Field, T.Param] },
  HasDeclSecurity: { bits: 2, tables: [T.TypeDef, T.MethodDef, T.Assembly] },
  MemberRefParent: { bits: 3, tables: [T.TypeDef, T.TypeRef, T.ModuleRef, T.MethodDef, T.TypeSpec] },
  HasSemantics: { bits: 1, tables: [T.Event, T.Property] },
  MethodDefOrRef: { bits: 1, tables: [T.MethodDef, T.MemberRef] },
  MemberForwarded: { bits: 1, tables: [T.Field, T.MethodDef] },
  CustomAttributeType: { bits: 3, tables: [-1, -1, T.MethodDef, T.MemberRef, -1] },
  ResolutionScope: { bits: 2, tables: [T.Module, T.ModuleRef, T.AssemblyRef, T.TypeRef] },
};

/**
 * Column kinds: a fixed byte width, a heap index ("string" | "guid" | "blob"),
 * a simple table index ({ t }), or a coded index ({ c }).
 */
type Col = 1 | 2 | 4 | 'string' | 'guid' | 'blob' | { t: number } | { c: keyof typeof CODED };

/** Row schemas of tables 0x00..0x20 (II.22.2–II.22.38, in table-number order). */
const SCHEMA: readonly (readonly Col[])[] = [
  /* 0x00 Module */ [2, 'string', 'guid', 'guid', 'guid'],
  /* 0x01 TypeRef */ [{ c: 'ResolutionScope' }, 'string', 'string'],
  /* 0x02 TypeDef */ [4, 'string', 'string', { c: 'TypeDefOrRef' }, { t: T.Field }, { t: T.MethodDef }],
  /* 0x03 FieldPtr */ [{ t: T.Field }],
  /* 0x04 Field */ [2, 'string', 'blob'],
  /* 0x05 MethodPtr */ [{ t: T.MethodDef }],
  /* 0x06 MethodDef */ [4, 2, 2, 'string', 'blob', { t: T.Param }],
  /* 0x07 ParamPtr */ [{ t: T.Param }],
  /* 0x08 Param */ [2, 2, 'string'],
  /* 0x09 InterfaceImpl */ [{ t: T.TypeDef }, { c: 'TypeDefOrRef' }],
  /* 0x0A MemberRef */ [{ c: 'MemberRefParent' }, 'string', 'blob'],
  /* 0x0B Constant */ [2 /* Type + padding byte */, { c: 'HasConstant' }, 'blob'],
  /* 0x0C CustomAttribute */ [{ c: 'HasCustomAttribute' }, { c: 'CustomAttributeType' }, 'blob'],
  /* 0x0D FieldMarshal */ [{ c: 'HasFieldMarshal' }, 'blob'],
  /* 0x0E DeclSecurity */ [2, { c: 'HasDeclSecurity' }, 'blob'],
  /* 0x0F ClassLayout */ [2, 4, { t: T.TypeDef }],
  /* 0x10 FieldLayout */ [4, { t: T.Field }],
  /* 0x11 StandAloneSig */ ['blob'],
  /* 0x12 EventMap */ [{ t: T.TypeDef }, { t: T.Event }],
  /* 0x13 EventPtr */ [{ t: T.Event }],
  /* 0x14 Event */ [2, 'string', { c: 'TypeDefOrRef' }],
  /* 0x15 PropertyMap */ [{ t: T.TypeDef }, { t: T.Property }],
  /* 0x16 PropertyPtr */ [{ t: T.Property }],
  /* 0x17 Property */ [2, 'string', 'blob'],
  /* 0x18 MethodSemantics */ [2, { t: T.MethodDef }, { c: 'HasSemantics' }],
  /* 0x19 MethodImpl */ [{ t: T.TypeDef }, { c: 'MethodDefOrRef' }, { c: 'MethodDefOrRef' }],
  /* 0x1A ModuleRef */ ['string'],
  /* 0x1B TypeSpec */ ['blob'],
  /* 0x1C ImplMap */ [2, { c: 'MemberForwarded' }, 'string', { t: T.ModuleRef }],
  /* 0x1D FieldRVA */ [4, { t: T.Field }],
  /* 0x1E ENCLog */ [4, 4],
  /* 0x1F ENCMap */ [4],
  /* 0x20 Assembly */ [4, 2, 2, 2, 2, 4, 'blob', 'string', 'string'],
];

interface Streams {
  tables: Region;
  strings: Region | null;
  blob: Region | null;
}

interface StreamHeader {
  offset: number;
  size: number;
}

/** Metadata root and stream headers (II.24.2.1, II.24.2.2). */
function readStreams(md: Region): Streams {
  if (md.u32(0, 'the metadata root') !== 0x424a5342) {
    fail('malformed: the metadata root has no "BSJB" signature');
  }
  const versionLength = md.u32(12, 'the metadata root');
  let p = 16 + versionLength;
  md.check(16, versionLength, 'the metadata version string');
  const streamCount = md.u16(p + 2, 'the metadata root');
  p += 4;
  const found = new Map<string, StreamHeader>();
  for (let i = 0; i < streamCount; i++) {
    const what = `stream header ${i}`;
    const offset = md.u32(p, what);
    const size = md.u32(p + 4, what);
    // Name: ASCII, NUL-terminated, at most 32 bytes, padded to a 4-byte boundary.
    let n = 0;
    while (md.u8(p + 8 + n, what) !== 0) {
      if (++n >= 32) fail(`malformed: ${what} has a name longer than 32 bytes`);
    }
    const name = String.fromCharCode(...md.slice(p + 8, n, what));
    p += 8 + ((n + 4) & ~3);
    if (!found.has(name)) found.set(name, { offset, size });
  }
  // Only the streams we read are bounds-checked (a bad #US header does not matter here).
  const open = (name: string): Region | null => {
    const h = found.get(name);
    return h ? md.sub(h.offset, h.size, `the ${name} stream`) : null;
  };
  // "#~" is the optimized tables stream; "#-" the unoptimized/ENC one (same header layout).
  const tables = open(found.has('#~') ? '#~' : '#-');
  if (!tables) return fail('malformed: the metadata has no #~ tables stream');
  return { tables, strings: open('#Strings'), blob: open('#Blob') };
}

/** Reads a NUL-terminated UTF-8 string from the #Strings heap (II.24.2.3). */
function readString(heap: Region | null, index: number, what: string): string {
  if (index === 0) return '';
  if (!heap || index >= heap.length) fail(`malformed: ${what} (string index ${hex(index)}) is outside the #Strings heap`);
  let end = index;
  while (heap.u8(end, what) !== 0) end++;
  return utf8(heap.slice(index, end - index, what), what);
}

/** Reads a blob from the #Blob heap: compressed length, then data (II.24.2.4). */
function readBlob(heap: Region | null, index: number, what: string): Uint8Array {
  if (index === 0) return new Uint8Array(0);
  if (!heap || index >= heap.length) fail(`malformed: ${what} (blob index ${hex(index)}) is outside the #Blob heap`);
  const h = heap;
  const b0 = h.u8(index, what);
  let length: number;
  let header: number;
  if ((b0 & 0x80) === 0) {
    length = b0;
    header = 1;
  } else if ((b0 & 0xc0) === 0x80) {
    length = ((b0 & 0x3f) << 8) | h.u8(index + 1, what);
    header = 2;
  } else if ((b0 & 0xe0) === 0xc0) {
    length = (((b0 & 0x1f) << 24) | (h.u8(index + 1, what) << 16) | (h.u8(index + 2, what) << 8) | h.u8(index + 3, what)) >>> 0;
    header = 4;
  } else {
    return fail(`malformed: ${what} has an invalid blob length prefix ${hex(b0)}`);
  }
  return h.slice(index + header, length, what);
}

/**
 * Reads the identity of the .NET assembly in `bytes` (a PE/COFF image).
 *
 * Returns `{ name, version: "a.b.c.d", culture (or "neutral"), publicKeyToken
 * (16 lowercase hex digits, or "" if not strong-named) }`, taken from the single
 * Assembly table row (ECMA-335 II.22.2) found via the CLI header (II.25.3.3),
 * the metadata root (II.24.2.1) and the #~ stream (II.24.2.6).
 *
 * @throws {NotAnAssemblyError} for anything that is not a well-formed .NET
 *   assembly (not PE, native PE, truncated, malformed metadata, a netmodule
 *   without an Assembly row); no other error type escapes for bad input.
 */
export function readAssemblyIdentity(bytes: Uint8Array): AssemblyIdentity {
  const pe = readPe(bytes);

  // CLI header, 72 bytes; MetaData directory (RVA, size) at offset 8 (II.25.3.3).
  const cli = mapRva(bytes, pe, pe.cliHeader.rva, 72, 'the CLI header');
  const mdRva = cli.u32(8, 'the CLI header');
  const mdSize = cli.u32(12, 'the CLI header');
  if (mdRva === 0 || mdSize === 0) fail('malformed: the CLI header has no metadata directory');
  const md = mapRva(bytes, pe, mdRva, mdSize, 'the metadata');
  const streams = readStreams(md);

  // Tables stream header (II.24.2.6).
  const ts = streams.tables;
  const heapSizes = ts.u8(6, 'the #~ stream header');
  const validLo = ts.u32(8, 'the #~ stream header');
  const validHi = ts.u32(12, 'the #~ stream header');
  const rows = new Array<number>(64).fill(0);
  let p = 24;
  for (let i = 0; i < 64; i++) {
    const present = i < 32 ? (validLo >>> i) & 1 : (validHi >>> (i - 32)) & 1;
    if (present) {
      rows[i] = ts.u32(p, 'the #~ stream row counts');
      p += 4;
    }
  }
  // Undocumented flag 0x40 ("extra data"): 4 more bytes before the tables (as in CoreCLR/dnlib).
  if (heapSizes & 0x40) p += 4;

  if ((rows[T.Assembly] ?? 0) === 0) {
    fail('a .NET module without an Assembly table row (a netmodule, not an assembly)');
  }

  const rowCount = (t: number): number => (t < 0 ? 0 : (rows[t] ?? 0));
  const colSize = (c: Col): number => {
    if (typeof c === 'number') return c;
    if (c === 'string') return heapSizes & 0x01 ? 4 : 2;
    if (c === 'guid') return heapSizes & 0x02 ? 4 : 2;
    if (c === 'blob') return heapSizes & 0x04 ? 4 : 2;
    if ('t' in c) return rowCount(c.t) < 0x10000 ? 2 : 4;
    const coded = CODED[c.c] as { bits: number; tables: readonly number[] };
    const max = Math.max(...coded.tables.map(rowCount));
    return max < 2 ** (16 - coded.bits) ? 2 : 4;
  };
  const rowSize = (t: number): number => (SCHEMA[t] ?? []).reduce<number>((n, c) => n + colSize(c), 0);

  // Tables are stored back to back in table-number order (II.24.2.6).
  let offset = p;
  for (let t = 0; t < T.Assembly; t++) offset += rowCount(t) * rowSize(t);

  const assemblyCols = SCHEMA[T.Assembly] as readonly Col[];
  const row = ts.sub(offset, rowSize(T.Assembly), 'the Assembly table');
  const cols: number[] = [];
  let q = 0;
  for (const c of assemblyCols) {
    const size = colSize(c);
    cols.push(size === 1 ? row.u8(q, 'the Assembly row') : row.index(q, size, 'the Assembly row'));
    q += size;
  }
  const [, major, minor, build, revision, , keyIndex, nameIndex, cultureIndex] = cols as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];

  const name = readString(streams.strings, nameIndex, 'the assembly name');
  if (name === '') fail('malformed: the Assembly row has an empty name');
  const culture = readString(streams.strings, cultureIndex, 'the assembly culture');
  const publicKey = readBlob(streams.blob, keyIndex, 'the assembly public key');

  return {
    name,
    version: `${major}.${minor}.${build}.${revision}`,
    culture: culture === '' ? 'neutral' : culture,
    publicKeyToken: publicKeyToken(publicKey),
  };
}
