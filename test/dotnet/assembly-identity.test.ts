import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NotAnAssemblyError, readAssemblyIdentity, type AssemblyIdentity } from '../../src/dotnet/assembly-identity.js';
import {
  buildAssembly,
  buildCliPayload,
  buildPe,
  ECMA_KEY,
  FILE_ALIGN,
  MODULE_ROW,
  SECTION_RVA,
  type AssemblySpec,
  type TablesSpec,
} from '../helpers/dotnet-assembly.js';

// ---------------------------------------------------------------------------
// Real files from ../shared/data (outside the repo; may be absent in a user's clone).
// ---------------------------------------------------------------------------

const DATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/data');

/** Path of a shared data file, and whether it exists (warns visibly when it does not). */
function sharedFile(name: string): { path: string; present: boolean; read: () => Uint8Array } {
  const path = resolve(DATA_DIR, name);
  const present = existsSync(path);
  if (!present) console.warn(`[skip] ${path} is absent: tests on the real ${name} are skipped`);
  return { path, present, read: () => new Uint8Array(readFileSync(path)) };
}

const xmlLinq = sharedFile('System.Xml.Linq.dll');
const cecilRocks = sharedFile('Mono.Cecil.Rocks.dll');

/** Asserts that `fn` throws a NotAnAssemblyError whose message matches `pattern`. */
function expectNotAnAssembly(fn: () => unknown, pattern: RegExp): NotAnAssemblyError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected a NotAnAssemblyError').toBeInstanceOf(NotAnAssemblyError);
  const err = caught as NotAnAssemblyError;
  expect(err.name).toBe('NotAnAssemblyError');
  expect(err.message).toMatch(pattern);
  return err;
}

describe.skipIf(!xmlLinq.present)('real assembly: System.Xml.Linq.dll', () => {
  it('reads the documented identity', () => {
    expect(readAssemblyIdentity(xmlLinq.read())).toEqual({
      name: 'System.Xml.Linq',
      version: '4.0.0.0',
      culture: 'neutral',
      publicKeyToken: 'b77a5c561934e089',
    });
  });

  it('accepts a Node Buffer and a view into a larger buffer (never reads outside the view)', () => {
    const bytes = xmlLinq.read();
    expect(readAssemblyIdentity(readFileSync(xmlLinq.path)).name).toBe('System.Xml.Linq');
    const big = new Uint8Array(bytes.length + 300).fill(0xee);
    big.set(bytes, 100);
    const view = big.subarray(100, 100 + bytes.length);
    expect(readAssemblyIdentity(view).publicKeyToken).toBe('b77a5c561934e089');
    // A truncated view must report truncation even though the backing buffer holds more bytes.
    const shortView = big.subarray(100, 100 + (bytes.length >> 1));
    expectNotAnAssembly(() => readAssemblyIdentity(shortView), /^truncated: .* extends past end of file/);
  });

  it.each([64, 200, 512, 4096, 0.5, 0.9])('rejects a copy truncated at %s (bytes, or fraction of the file)', (cut) => {
    const bytes = xmlLinq.read();
    const n = cut < 1 ? Math.floor(bytes.length * cut) : cut;
    expectNotAnAssembly(() => readAssemblyIdentity(bytes.subarray(0, n)), /^truncated: .* extends past end of file/);
  });

  it('rejects a copy whose metadata signature is damaged', () => {
    const bytes = xmlLinq.read().slice();
    const at = Buffer.from(bytes).indexOf('BSJB');
    expect(at).toBeGreaterThan(0);
    bytes[at] = 0x58;
    expectNotAnAssembly(() => readAssemblyIdentity(bytes), /no "BSJB" signature/);
  });
});

describe.skipIf(!cecilRocks.present)('real assembly: Mono.Cecil.Rocks.dll', () => {
  // Cross-checked with Mono's monodis (`monodis --assembly`: name Mono.Cecil.Rocks, version
  // 0.9.5.0, empty culture, 160-byte public key) and an independent SHA-1 of that key dump
  // (python hashlib) giving token 0738eb9f132ed756, the same token monodis shows for the
  // Mono.Cecil reference in its AssemblyRef table.
  it('reads its identity', () => {
    expect(readAssemblyIdentity(cecilRocks.read())).toEqual({
      name: 'Mono.Cecil.Rocks',
      version: '0.9.5.0',
      culture: 'neutral',
      publicKeyToken: '0738eb9f132ed756',
    });
  });
});

// ---------------------------------------------------------------------------
// Generated files: a small PE builder and a minimal ECMA-335 metadata builder.
// ---------------------------------------------------------------------------
// (the builders live in ../helpers/dotnet-assembly.ts, shared with the assemblies import tests)

describe('generated minimal assemblies', () => {
  it('reads name, version, neutral culture and an empty token for an unsigned assembly', () => {
    const bytes = buildAssembly({ name: 'Tiny.Assembly', version: [1, 2, 3, 4], tables: { before: { 0: MODULE_ROW } } });
    expect(readAssemblyIdentity(bytes)).toEqual<AssemblyIdentity>({
      name: 'Tiny.Assembly',
      version: '1.2.3.4',
      culture: 'neutral',
      publicKeyToken: '',
    });
  });

  it('reads culture, full 16-bit version parts, a UTF-8 name and a public key token', () => {
    const bytes = buildAssembly({
      name: 'Ünïcödé.Resources',
      version: [65535, 0, 65534, 7],
      culture: 'de-DE',
      publicKey: ECMA_KEY,
      tables: { before: { 0: MODULE_ROW } },
    });
    expect(readAssemblyIdentity(bytes)).toEqual({
      name: 'Ünïcödé.Resources',
      version: '65535.0.65534.7',
      culture: 'de-DE',
      publicKeyToken: 'b77a5c561934e089',
    });
  });

  it('handles wide heap indexes, PE32+, the #- stream and the extra-data flag', () => {
    const bytes = buildAssembly(
      {
        name: 'Wide',
        publicKey: ECMA_KEY,
        tablesStreamName: '#-',
        // Module row with 4-byte #Strings and #GUID indexes: 2 + 4 + 4 + 4 + 4.
        tables: { heapSizes: 0x07 | 0x40, before: { 0: { rows: 1, rowSize: 18 } } },
      },
      { pe32plus: true },
    );
    expect(readAssemblyIdentity(bytes)).toMatchObject({ name: 'Wide', publicKeyToken: 'b77a5c561934e089' });
  });

  // Row sizes below are computed by hand from ECMA-335 II.22 / II.24.2.6, independently of the
  // reader's schema: if the reader sized any of these tables differently, the Assembly row would be
  // read from the wrong place and the name would not come out.
  it.each<{ what: string; before: TablesSpec['before']; after?: TablesSpec['after'] }>([
    {
      what: 'HasCustomAttribute stays 2 bytes at 2047 MethodDef rows',
      // MethodDef: RVA 4, ImplFlags 2, Flags 2, Name 2, Signature 2, ParamList 2 = 14.
      // CustomAttribute: Parent 2, Type 2, Value 2 = 6.
      before: { 0: MODULE_ROW, 6: { rows: 2047, rowSize: 14 }, 0x0c: { rows: 3, rowSize: 6 } },
    },
    {
      what: 'HasCustomAttribute (5 tag bits) widens at 2048 MethodDef rows',
      before: { 0: MODULE_ROW, 6: { rows: 2048, rowSize: 14 }, 0x0c: { rows: 3, rowSize: 8 } },
    },
    {
      what: 'MemberRefParent (3 tag bits) widens at 8192 TypeRef rows',
      // TypeRef: ResolutionScope 2 (max(Module 1, TypeRef 8192, ...) < 16384), Name 2, Namespace 2 = 6.
      // MemberRef: Class 4, Name 2, Signature 2 = 8.
      // CustomAttribute: Parent 4 (TypeRef 8192 >= 2048), Type 2, Value 2 = 8.
      before: { 0: MODULE_ROW, 1: { rows: 8192, rowSize: 6 }, 0x0a: { rows: 2, rowSize: 8 }, 0x0c: { rows: 1, rowSize: 8 } },
    },
    {
      what: 'simple Field index widens at 65536 Field rows',
      // TypeDef: Flags 4, Name 2, Namespace 2, Extends 2, FieldList 4, MethodList 2 = 16.
      // Field: Flags 2, Name 2, Signature 2 = 6. FieldRVA: RVA 4, Field 4 = 8.
      // Constant: Type+pad 2, Parent 4 (HasConstant 2 bits: 65536 >= 16384), Value 2 = 8.
      before: {
        0: MODULE_ROW,
        2: { rows: 2, rowSize: 16 },
        4: { rows: 65536, rowSize: 6 },
        0x0b: { rows: 1, rowSize: 8 },
        0x1d: { rows: 1, rowSize: 8 },
      },
    },
    {
      what: 'ResolutionScope counts AssemblyRef rows (a table after Assembly)',
      // TypeRef: ResolutionScope 4 (AssemblyRef 16384 >= 2^14), Name 2, Namespace 2 = 8.
      before: { 0: MODULE_ROW, 1: { rows: 5, rowSize: 8 } },
      after: { 0x23: 16384 },
    },
    {
      what: 'Ptr, ENC and the remaining tables 0x00..0x1F',
      // With all counts small and narrow heaps, per II.22:
      before: {
        0x00: MODULE_ROW,
        0x01: { rows: 1, rowSize: 6 }, // TypeRef
        0x02: { rows: 1, rowSize: 14 }, // TypeDef 4+2+2+2+2+2
        0x03: { rows: 1, rowSize: 2 }, // FieldPtr
        0x04: { rows: 1, rowSize: 6 }, // Field
        0x05: { rows: 1, rowSize: 2 }, // MethodPtr
        0x06: { rows: 1, rowSize: 14 }, // MethodDef
        0x07: { rows: 1, rowSize: 2 }, // ParamPtr
        0x08: { rows: 1, rowSize: 6 }, // Param 2+2+2
        0x09: { rows: 1, rowSize: 4 }, // InterfaceImpl
        0x0a: { rows: 1, rowSize: 6 }, // MemberRef
        0x0b: { rows: 1, rowSize: 6 }, // Constant
        0x0c: { rows: 1, rowSize: 6 }, // CustomAttribute
        0x0d: { rows: 1, rowSize: 4 }, // FieldMarshal
        0x0e: { rows: 1, rowSize: 6 }, // DeclSecurity
        0x0f: { rows: 1, rowSize: 8 }, // ClassLayout 2+4+2
        0x10: { rows: 1, rowSize: 6 }, // FieldLayout 4+2
        0x11: { rows: 1, rowSize: 2 }, // StandAloneSig
        0x12: { rows: 1, rowSize: 4 }, // EventMap
        0x13: { rows: 1, rowSize: 2 }, // EventPtr
        0x14: { rows: 1, rowSize: 6 }, // Event 2+2+2
        0x15: { rows: 1, rowSize: 4 }, // PropertyMap
        0x16: { rows: 1, rowSize: 2 }, // PropertyPtr
        0x17: { rows: 1, rowSize: 6 }, // Property
        0x18: { rows: 1, rowSize: 6 }, // MethodSemantics 2+2+2
        0x19: { rows: 1, rowSize: 6 }, // MethodImpl
        0x1a: { rows: 1, rowSize: 2 }, // ModuleRef
        0x1b: { rows: 1, rowSize: 2 }, // TypeSpec
        0x1c: { rows: 1, rowSize: 8 }, // ImplMap 2+2+2+2
        0x1d: { rows: 1, rowSize: 6 }, // FieldRVA 4+2
        0x1e: { rows: 1, rowSize: 8 }, // ENCLog 4+4
        0x1f: { rows: 1, rowSize: 4 }, // ENCMap 4
      },
    },
  ])('$what', ({ before, after }) => {
    const bytes = buildAssembly({ name: 'Sized', tables: { before, after } });
    expect(readAssemblyIdentity(bytes).name).toBe('Sized');
  });

  it('rejects a netmodule (no Assembly row)', () => {
    const bytes = buildAssembly({ tables: { before: { 0: MODULE_ROW }, assembly: false } });
    expectNotAnAssembly(() => readAssemblyIdentity(bytes), /a \.NET module without an Assembly table row/);
  });

  it('rejects a name index outside #Strings, and a name that is not UTF-8', () => {
    expectNotAnAssembly(
      () => readAssemblyIdentity(buildAssembly({ nameIndex: 0x7000 })),
      /string index 0x7000\) is outside the #Strings heap/,
    );
    const badUtf8 = Uint8Array.from([0, 0x41, 0xff, 0xfe, 0, 0, 0, 0]);
    expectNotAnAssembly(
      () => readAssemblyIdentity(buildAssembly({ rawStrings: badUtf8, nameIndex: 1 })),
      /the assembly name is not valid UTF-8/,
    );
  });

  it('rejects the hand-built assembly truncated anywhere before the end of its metadata', () => {
    const spec: AssemblySpec = { publicKey: ECMA_KEY, tables: { before: { 0: MODULE_ROW } } };
    const bytes = buildAssembly(spec);
    const end = FILE_ALIGN + buildCliPayload(SECTION_RVA, spec).length; // the rest is section padding
    for (let n = 0; n < end; n += 7) {
      expect(() => readAssemblyIdentity(bytes.subarray(0, n)), `cut at ${n}`).toThrow(NotAnAssemblyError);
    }
    for (const n of [0x40, 0x100, FILE_ALIGN + 40, FILE_ALIGN + 100, end - 1]) {
      expectNotAnAssembly(() => readAssemblyIdentity(bytes.subarray(0, n)), /^truncated: .* extends past end of file/);
    }
    expect(readAssemblyIdentity(bytes.subarray(0, end)).name).toBe('Tiny.Assembly');
  });
});

// ---------------------------------------------------------------------------
// Files that are not .NET assemblies.
// ---------------------------------------------------------------------------

describe('not an assembly', () => {
  it('rejects an empty file and a text file', () => {
    expectNotAnAssembly(() => readAssemblyIdentity(new Uint8Array(0)), /^not a PE file \(the file is empty\)$/);
    const text = new TextEncoder().encode('Hello, this is a README, not a DLL.\n');
    expectNotAnAssembly(() => readAssemblyIdentity(text), /^not a PE file \(no MZ header\)$/);
    expectNotAnAssembly(() => readAssemblyIdentity(Uint8Array.of(0x4d)), /no MZ header/);
  });

  it('rejects an ELF header', () => {
    const elf = new Uint8Array(64);
    elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]); // \x7fELF, 64-bit, little-endian, v1
    elf.set([3, 0, 0x3e, 0], 16); // ET_DYN, x86-64
    expectNotAnAssembly(() => readAssemblyIdentity(elf), /no MZ header/);
  });

  it('rejects an MS-DOS program (MZ without a PE signature)', () => {
    const dos = new Uint8Array(256);
    dos.set([0x4d, 0x5a]);
    dos[0x3c] = 0x80;
    expectNotAnAssembly(() => readAssemblyIdentity(dos), /no "PE" signature at offset 0x80/);
  });

  it('rejects a native PE32 and PE32+ without a CLI header', () => {
    for (const pe32plus of [false, true]) {
      expectNotAnAssembly(
        () => readAssemblyIdentity(buildPe({ pe32plus })),
        /^a native PE file with no CLI header \(not a \.NET assembly\)$/,
      );
    }
    // Only 14 data directories in use: entry 14 does not exist.
    const fake = buildPe({ numberOfRvaAndSizes: 14, cliHeader: { rva: SECTION_RVA, size: 72 } });
    expectNotAnAssembly(() => readAssemblyIdentity(fake), /native PE file with no CLI header/);
  });

  it('rejects a hand-built native PE truncated inside its headers', () => {
    const pe = buildPe();
    expectNotAnAssembly(() => readAssemblyIdentity(pe.subarray(0, 40)), /^truncated: the MS-DOS header extends past end of file$/);
    expectNotAnAssembly(() => readAssemblyIdentity(pe.subarray(0, 0x42)), /^truncated: the PE header at offset 0x40/);
    expectNotAnAssembly(() => readAssemblyIdentity(pe.subarray(0, 0x50)), /^truncated: the COFF file header/);
    expectNotAnAssembly(() => readAssemblyIdentity(pe.subarray(0, 0x100)), /^truncated: the PE optional header/);
    expectNotAnAssembly(() => readAssemblyIdentity(pe.subarray(0, 0x140)), /^truncated: the section table/);
  });

  it('rejects a CLI header that points outside every section', () => {
    const pe = buildPe({ cliHeader: { rva: 0x900000, size: 72 } });
    expectNotAnAssembly(() => readAssemblyIdentity(pe), /the CLI header \(RVA 0x900000\) is not inside any section/);
  });

  it('rejects a CLI header without a metadata directory', () => {
    const pe = buildPe({ text: new Uint8Array(72).fill(0), cliHeader: { rva: SECTION_RVA, size: 72 } });
    expectNotAnAssembly(() => readAssemblyIdentity(pe), /the CLI header has no metadata directory/);
  });
});

// ---------------------------------------------------------------------------
// Fuzzing: damaged copies either still read or throw NotAnAssemblyError, nothing else.
// ---------------------------------------------------------------------------

/** mulberry32: small deterministic PRNG. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fuzz(original: Uint8Array, seed: number, cases: number): { ok: number; rejected: number } {
  const random = rng(seed);
  const int = (n: number): number => Math.floor(random() * n);
  const bsjb = Buffer.from(original).indexOf('BSJB');
  // Aim most flips where they matter: headers, CLI header/metadata root and tables.
  const hot: [number, number][] = [
    [0, Math.min(original.length, 0x400)],
    [Math.max(0, bsjb - 128), Math.min(original.length, Math.max(0, bsjb) + 4096)],
    [0, original.length],
  ];
  let ok = 0;
  let rejected = 0;
  for (let i = 0; i < cases; i++) {
    let bytes = original.slice();
    const flips = 1 + int(8);
    for (let f = 0; f < flips; f++) {
      const [lo, hi] = hot[int(hot.length)] as [number, number];
      const at = lo + int(Math.max(1, hi - lo));
      const r = random();
      if (r < 0.4) bytes[at] = int(256);
      else if (r < 0.7) bytes[at] = (bytes[at] as number) ^ (1 << int(8));
      else bytes[at] = [0x00, 0xff, 0x7f, 0x80][int(4)] as number;
    }
    if (random() < 0.25) bytes = bytes.subarray(0, int(bytes.length));
    try {
      const id = readAssemblyIdentity(bytes);
      expect(typeof id.name).toBe('string');
      expect(id.version).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(id.publicKeyToken).toMatch(/^([0-9a-f]{16})?$/);
      ok++;
    } catch (e) {
      if (!(e instanceof NotAnAssemblyError)) {
        throw new Error(`case ${i} (seed ${seed}) threw ${String(e)} instead of NotAnAssemblyError`, { cause: e });
      }
      expect(e.message.length).toBeGreaterThan(10);
      rejected++;
    }
  }
  return { ok, rejected };
}

describe('fuzzing', () => {
  it('damaged copies of a generated assembly only read or throw NotAnAssemblyError', () => {
    const original = buildAssembly({
      name: 'Fuzz.Me',
      culture: 'fr',
      publicKey: ECMA_KEY,
      tables: { before: { 0: MODULE_ROW, 1: { rows: 3, rowSize: 6 }, 2: { rows: 2, rowSize: 14 } } },
    });
    const { ok, rejected } = fuzz(original, 0x5eed, 300);
    expect(ok + rejected).toBe(300);
    expect(rejected).toBeGreaterThan(0);
  });

  it.skipIf(!xmlLinq.present)('damaged copies of System.Xml.Linq.dll only read or throw NotAnAssemblyError', () => {
    const { ok, rejected } = fuzz(xmlLinq.read(), 20240917, 300);
    expect(ok + rejected).toBe(300);
    expect(ok).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
  });
});
