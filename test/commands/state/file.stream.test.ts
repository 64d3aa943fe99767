/**
 * The three ways a state file is read (src/commands/state/file.ts) give the same records and
 * the same problems: a regular file in export's order streamed a batch at a time (so is stdin,
 * through its private copy), any block-style file held whole as bytes (another order), and the
 * whole document parsed at once (any other shape; here forced by a `...` document end marker on
 * the last line, which changes no line number). Files of several batches, with CRLF, a byte order mark, sections out
 * of order, the version last or wrong, problems and duplicates across batches, an alias from one
 * batch to another, a record longer than a read, a bad UTF-8 byte far into the file.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/errors.js';
import { readStateFile, type StateFileContext } from '../../../src/commands/state/file.js';
import { testContext } from '../../helpers/context.js';
import { tempDir } from '../../helpers/temp.js';

const dir = tempDir('lic-state-stream-');
let n = 0;

/** The Context readStateFile is given: `bytes` on stdin (none: a test of a regular file), working directory `dir`. */
const ctxWith = (bytes?: string | Buffer): StateFileContext => ({ ...testContext({ stdin: bytes }).ctx, cwd: dir });

/** The outcome of readStateFile: the records (source left out), or the error's message with the file's name as `FILE`. */
async function outcome(read: () => Promise<unknown>, name: string): Promise<unknown> {
  try {
    const { source: _, readAs: __, ...rest } = (await read()) as { source: string; readAs?: string };
    return rest;
  } catch (e) {
    return { error: (e as Error).message.replaceAll(name, 'FILE') };
  }
}

/** The outcomes of `text` read as a regular file, from stdin, and (with `...` appended) as a whole document. */
async function readAllWays(text: string | Buffer): Promise<{ file: unknown; stdin: unknown; whole: unknown }> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const path = join(dir, `s${n++}.yaml`);
  writeFileSync(path, bytes);
  const wholePath = join(dir, `s${n++}.yaml`);
  const endsInNewline = bytes.at(-1) === 10;
  writeFileSync(wholePath, Buffer.concat([bytes, Buffer.from(endsInNewline ? '...\n' : '\n...\n')]));
  return {
    file: await outcome(() => readStateFile(path, ctxWith()), path),
    stdin: await outcome(() => readStateFile('-', ctxWith(bytes)), 'stdin'),
    whole: await outcome(() => readStateFile(wholePath, ctxWith()), wholePath),
  };
}

const key = (i: number, extra = '') =>
  `  - name: key-${i}\n    ownerId: owner-${i % 7}\n    permissions: ${i % 8}\n    description: "the key number ${i}, padded to fill batches sooner"\n    expireDate: 2030-01-0${1 + (i % 9)}T00:00:00Z\n${extra}`;
const resource = (i: number) =>
  `  - code: r-${i}\n    name: Resource ${i}\n    type: t${i % 3}\n    data: ${Buffer.from(`data ${i}`).toString('base64')}\n`;
const assembly = (i: number) =>
  `  - name: Lib${i % 50}\n    version: 1.0.${i}.0\n    publicKeyToken: 0123456789ABCDEF\n    mappingFile: r-${i % 10}\n`;
const section = (name: string, count: number, rec: (i: number) => string) =>
  `${name}:\n${Array.from({ length: count }, (_, i) => rec(i)).join('')}`;

describe('a state file read streamed, whole as bytes, or as one document gives the same records and problems', () => {
  it("export's order, several batches per section, comments and blank lines between records", async () => {
    const text =
      '# exported\nversion: 1\n' +
      section('resources', 400, resource) +
      '\n# assemblies next\n' +
      section('assemblies', 600, assembly) +
      section('keys', 1500, (i) => key(i, i % 100 === 0 ? '\n    # a comment inside\n' : ''));
    const r = await readAllWays(text);
    expect(r.file).toEqual(r.stdin);
    expect(r.file).toEqual(r.whole);
    const out = r.file as { keys: { line: number; rec: { name: string; expireDate: string } }[]; assemblies: unknown[] };
    expect(out.keys).toHaveLength(1500);
    expect(out.assemblies).toHaveLength(600);
    expect(out.keys[1499]!.rec).toMatchObject({ name: 'key-1499', expireDate: '2030-01-06T00:00:00.000Z' });
  });

  it('CRLF line ends and a byte order mark', async () => {
    const text = '\uFEFFversion: 1\r\n' + section('keys', 800, (i) => key(i)).replaceAll('\n', '\r\n');
    // a CRLF file is streamed like an LF one (its `version: 1\r` line once sent it to the whole-document parse, ~3x the memory)
    const path = join(dir, `s${n++}.yaml`);
    writeFileSync(path, text);
    expect((await readStateFile(path, ctxWith())).readAs).toBe('streamed');
    // stdin too, through its copy on disk (it was held whole as bytes: 5.3 times a 60 MB file, bench/reliability.md)
    expect((await readStateFile('-', ctxWith(text))).readAs).toBe('streamed');
    const r = await readAllWays(text);
    expect(r.file).toEqual(r.stdin);
    expect(r.file).toEqual(r.whole);
    expect((r.file as { keys: unknown[] }).keys).toHaveLength(800);
  });

  it('stdin is read as a regular file is, from its copy: messages name stdin:LINE (never the copy), a dataFile is relative to the cwd', async () => {
    writeFileSync(join(dir, 'blob.bin'), 'bytes of a resource');
    const good = 'version: 1\nresources:\n  - code: r-file\n    name: From a file\n    dataFile: blob.bin\n' + section('keys', 900, key);
    const t = testContext({ stdin: good });
    const read = await readStateFile('-', { ...t.ctx, cwd: dir });
    expect(read.source).toBe('stdin');
    expect(read.readAs).toBe('streamed');
    expect(read.resources![0]!.rec.data).toEqual({ file: join(dir, 'blob.bin') });
    expect(read.keys).toHaveLength(900);
    // no signal handler left behind
    expect(t.interruptHandlers()).toBe(0);
    // a problem far into the file: its line on stdin
    const bad = 'version: 1\n' + section('keys', 900, (i) => key(i, i === 700 ? '    colour: red\n' : ''));
    const e = await readStateFile('-', ctxWith(bad)).catch((x: Error) => x);
    expect(e).toBeInstanceOf(UsageError);
    const msg = (e as Error).message;
    expect(msg).toContain(
      `\n  stdin:${2 + 1 + 700 * 5 + 5}: keys[700].colour: unknown field (fields: name, ownerId, permissions, description, expireDate, revoked)`,
    );
    expect(msg).not.toMatch(/lic-state-|stdin\.yaml/);
    // another order on stdin: held whole as bytes, as such a regular file is
    expect((await readStateFile('-', ctxWith(section('keys', 10, key) + 'version: 1\n'))).readAs).toBe('bytes');
  });

  it('problems and a duplicate across batches, in sections out of order and with the version last: listed in the same order', async () => {
    const bad = (i: number) => (i % 97 === 5 ? key(i, '    color: red\n') : i === 900 ? key(3) : key(i));
    const text =
      section('keys', 1000, bad) + section('resources', 300, (i) => (i === 250 ? '  - code: x\n' : resource(i))) + 'version: 1\n';
    const r = await readAllWays(text);
    expect(r.file).toEqual(r.stdin);
    expect(r.file).toEqual(r.whole);
    expect((r.file as { error: string }).error).toMatch(
      /^invalid state file; nothing was sent:\n {2}FILE:\d+: resources\[250\]: field name is missing\n/,
    );
  });

  it('an assembly and a key named twice, far apart and in another case: each duplicate names the line of the first', async () => {
    const asm = (i: number) => (i === 500 ? assembly(3).replace('0123456789ABCDEF', '0123456789abcdef') : assembly(i));
    const text = 'version: 1\n' + section('assemblies', 600, asm) + section('keys', 900, (i) => key(i === 800 ? 20 : i));
    const r = await readAllWays(text);
    expect(r.file).toEqual(r.stdin);
    expect(r.file).toEqual(r.whole);
    const lines = (r.file as { error: string }).error.split('\n');
    expect(lines.slice(1)).toEqual([
      `  FILE:${2 + 500 * 4 + 1}: assemblies[500]: Lib3, Version=1.0.3.0, Culture=neutral, PublicKeyToken=0123456789abcdef is already on line ${2 + 3 * 4 + 1}; a state file names each record once`,
      `  FILE:${2 + 600 * 4 + 1 + 1 + 800 * 5}: keys[800]: key-20 is already on line ${2 + 600 * 4 + 1 + 1 + 20 * 5}; a state file names each record once`,
    ]);
  });

  it('the version wrong, missing or not YAML', async () => {
    for (const head of ['version: 2\n', '', 'version: [1\n', 'version: 1 # ok\n']) {
      const r = await readAllWays(head + section('keys', 300, key));
      expect(r.file, head).toEqual(r.stdin);
      expect(r.file, head).toEqual(r.whole);
    }
  });

  it('an anchor in one batch and its alias in another: the whole document is read', async () => {
    const recs = Array.from({ length: 600 }, (_, i) =>
      i === 1
        ? key(i).replace('ownerId: owner-1', 'ownerId: &o owner-x')
        : i === 550
          ? key(i).replace(/ownerId: owner-\d+/, 'ownerId: *o')
          : key(i),
    );
    const r = await readAllWays('version: 1\nkeys:\n' + recs.join(''));
    expect(r.file).toEqual(r.stdin);
    expect(r.file).toEqual(r.whole);
    expect((r.file as { keys: { rec: { ownerId: string } }[] }).keys[550]!.rec.ownerId).toBe('owner-x');
  });

  it('a record longer than a read (3 MB of base64) between others, and no newline at the end', async () => {
    const big = Buffer.alloc(2_400_000, 7).toString('base64');
    const text =
      'version: 1\nresources:\n' +
      Array.from({ length: 300 }, (_, i) => (i === 150 ? `  - code: big\n    name: Big\n    data: ${big}\n` : resource(i))).join('') +
      'keys: []';
    const r = await readAllWays(text);
    expect(r.file).toEqual(r.stdin);
    expect(r.file).toEqual(r.whole);
    const out = r.file as { resources: { rec: { code: string; data: { base64: string } } }[]; keys: unknown[] };
    expect(out.resources[150]!.rec.data.base64).toBe(big);
    expect(out.keys).toEqual([]);
  });

  it('a byte that is not UTF-8, 2 MB into the file: the same one line', async () => {
    const text = 'version: 1\n' + section('keys', 20_000, key);
    const bytes = Buffer.from(text);
    bytes[2_000_000] = 0xff;
    const r = await readAllWays(bytes);
    // (outcome names the file, and stdin, FILE)
    expect(r.file).toEqual({ error: 'FILE: not UTF-8 text' });
    expect(r.stdin).toEqual(r.file);
    expect(r.whole).toEqual(r.file);
  });

  it('a tab far into the file (not the block style): the whole document reports it', async () => {
    const recs = Array.from({ length: 700 }, (_, i) => (i === 650 ? key(i).replace('    permissions', '\tpermissions') : key(i)));
    const r = await readAllWays('version: 1\nkeys:\n' + recs.join(''));
    expect(r.file).toEqual(r.stdin);
    expect(r.file).toEqual(r.whole);
    expect((r.file as { error: string }).error).toMatch(/FILE:\d+/);
  });
});
