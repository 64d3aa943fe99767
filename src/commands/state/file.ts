/**
 * The state file of `lic state export`, `lic diff` and `lic apply` (docs/state.md): one
 * YAML (or JSON) document with a section per noun, each record named by its identity —
 * a resource by `code`, an assembly by name + version + culture + public key token, an
 * API key by `name`. The record fields are the writable fields of src/schema/ (contract
 * §4, §7), with two changes: an assembly names its mapping file by the resource's code
 * (`mappingFile`), not by an id that differs between services; a resource's bytes are
 * `data` (base64) or `dataFile` (a path, read when needed). Never a secret: no API key,
 * no resource password. A field left out holds its default ("" / 0 / false / null),
 * so removing `expireDate` from a key is an update to "never expires".
 */
import { isUtf8 } from 'node:buffer';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { collectAfterBurst, collectAfterRecordData } from '../../cli/memory.js';
import { describeFsError, readFileBounded } from '../../cli/files.js';
import { isOnePass, openOnePass, openSpool, stdinInput, type OnePassInput } from '../../cli/spool.js';
import { ApiKeyInsertBody, ApiKeyUpdateBody } from '../../schema/api-key.js';
import { AssemblyInsertBody } from '../../schema/assembly.js';
import { ResourceInsertBody } from '../../schema/resource.js';
import { parseRfc3339 } from '../../time.js';
import { isBase64 } from '../resources/bundle.js';
import { MAX_DATA_BYTES } from '../resources/input.js';

/** The nouns a state file may hold, in the order apply creates them (a resource before the assembly that names it). */
export const STATE_NOUNS = ['resources', 'assemblies', 'keys'] as const;
export type StateNoun = (typeof STATE_NOUNS)[number];

/** The one state-file format version this lic reads and writes. */
export const STATE_VERSION = 1;

/** Largest state file read whole: 64 MiB (resource data past that belongs in files: `state export --data-dir`). */
const MAX_STATE_BYTES = 64 * 1024 * 1024;

const apiKeyInsert = ApiKeyInsertBody.properties.apiKey.properties;
const apiKeyUpdate = ApiKeyUpdateBody.properties.apiKey.properties;
const resourceInsert = ResourceInsertBody.properties.resource.properties;
const assemblyInsert = AssemblyInsertBody.properties.assembly.properties;

/** An API key in the file: the insert body's fields (contract §4) without `id`, with the update's nullable `expireDate` and `revoked`. */
const KeySchema = {
  type: 'object',
  properties: {
    name: { ...apiKeyInsert.name, minLength: 1 },
    ownerId: { ...apiKeyInsert.ownerId, minLength: 1 },
    permissions: apiKeyInsert.permissions,
    description: apiKeyInsert.description,
    expireDate: apiKeyUpdate.expireDate,
    revoked: apiKeyUpdate.revoked,
  },
  required: ['name', 'ownerId', 'permissions'],
  additionalProperties: false,
} as const;

/** A resource in the file: the insert body's fields (contract §7) but id, password and the read-only times; `data` or `dataFile`. */
const ResourceFileSchema = {
  type: 'object',
  properties: {
    code: { ...resourceInsert.code, minLength: 1 },
    name: resourceInsert.name,
    type: resourceInsert.type,
    description: resourceInsert.description,
    source: resourceInsert.source,
    dataFormat: resourceInsert.dataFormat,
    data: { type: 'string' },
    dataFile: { type: 'string', minLength: 1, maxLength: 4096 },
  },
  required: ['code', 'name'],
  additionalProperties: false,
} as const;

/** An assembly in the file: the insert body's fields (contract §7) but id; `mappingFile` is the mapping resource's code. */
const AssemblySchema = {
  type: 'object',
  properties: {
    name: assemblyInsert.name,
    version: assemblyInsert.version,
    culture: assemblyInsert.culture,
    publicKeyToken: assemblyInsert.publicKeyToken,
    mappingFile: { type: 'string', maxLength: 256 },
    debugSymbolsKey: assemblyInsert.debugSymbolsKey,
  },
  required: ['name'],
  additionalProperties: false,
} as const;

const SCHEMAS = { keys: KeySchema, resources: ResourceFileSchema, assemblies: AssemblySchema } as const;

/** Where a resource's bytes come from: inline base64, or a file (absolute path) read when needed. */
export type DataRef = { base64: string } | { file: string };

/** A desired API key, every field present (defaults filled in); expireDate RFC 3339 UTC or null. */
export interface KeyState {
  name: string;
  ownerId: string;
  permissions: number;
  description: string;
  expireDate: string | null;
  revoked: boolean;
}
/** A desired resource, every field present; `data` says where its bytes are. */
export interface ResourceState {
  code: string;
  name: string;
  type: string;
  description: string;
  source: string;
  dataFormat: string;
  data: DataRef;
}
/** A desired assembly, every field present; culture '' for neutral, token lowercase (as the service stores them, contract §7). */
export interface AssemblyState {
  name: string;
  version: string;
  culture: string;
  publicKeyToken: string;
  mappingFile: string;
  debugSymbolsKey: string;
}

/** A checked state file: the nouns it holds (others are left alone by apply, even with --prune), each record with its line. */
export interface DesiredState {
  source: string;
  /** how it was read (memory: streamed ≤ 4× the file; bytes held whole; the whole YAML document, ~30× its text): for tests and `-v` */
  readAs?: 'streamed' | 'bytes' | 'document';
  resources?: { line: number; rec: ResourceState }[];
  assemblies?: { line: number; rec: AssemblyState }[];
  keys?: { line: number; rec: KeyState }[];
}

/** An assembly's identity as .NET displays it: `Name, Version=1.0.0.0, Culture=neutral, PublicKeyToken=null`. */
export const assemblyIdentity = (a: Pick<AssemblyState, 'name' | 'version' | 'culture' | 'publicKeyToken'>): string =>
  `${a.name}, Version=${a.version || '0.0.0.0'}, Culture=${a.culture || 'neutral'}, PublicKeyToken=${a.publicKeyToken || 'null'}`;

/** The key an assembly is matched by: name, version, culture (any case, '' = neutral), token (any case); contract §7. */
export const assemblyKey = (a: Pick<AssemblyState, 'name' | 'version' | 'culture' | 'publicKeyToken'>): string =>
  JSON.stringify([a.name, a.version, (a.culture || 'neutral').toLowerCase(), (a.publicKeyToken || '').toLowerCase()]);

/** The identity a record of `noun` is named by in messages. */
function identityOf(noun: StateNoun, rec: KeyState | ResourceState | AssemblyState): string {
  if (noun === 'keys') return (rec as KeyState).name;
  if (noun === 'resources') return (rec as ResourceState).code;
  return assemblyIdentity(rec as AssemblyState);
}

/** The match key of a record of `noun` (identityOf, compared as the service compares). */
export function matchKey(noun: StateNoun, rec: KeyState | ResourceState | AssemblyState): string {
  return noun === 'assemblies' ? assemblyKey(rec as AssemblyState) : identityOf(noun, rec);
}

const VERSION_RE = /^(0|[1-9]\d{0,4})\.(0|[1-9]\d{0,4})\.(0|[1-9]\d{0,4})\.(0|[1-9]\d{0,4})$/;

/** The `yaml` package (loaded on first use: only these verbs need it). */
type Yaml = typeof import('yaml');

/** What readStateFile takes of the Context: stdin, stderr and the signals (for `-f -`), the working directory. */
export type StateFileContext = Pick<Context, 'stdin' | 'stderr' | 'onInterrupt' | 'cwd'>;

/**
 * Reads and checks the state file `path` (`-` = stdin): YAML 1.2 or JSON, UTF-8, at most
 * MAX_STATE_BYTES. Every record is checked against its schema (built from src/schema/
 * above) before anything is sent, and so are the rules a schema can't say: an RFC 3339
 * expireDate, a version a.b.c.d, a 16-hex-digit token, base64 data, a dataFile that
 * exists and is at most MAX_DATA_BYTES, each identity once, and a mappingFile naming a
 * resource of the file or of the service (`serviceCodes`, checked later by the plan).
 * A relative dataFile is relative to the state file's directory, or to `ctx.cwd` for a
 * state file on stdin. Throws UsageError (exit 2) listing up to 10 problems as
 * `FILE:LINE: section[i].field: …`, then how many more; checking stops at the 100th.
 *
 * Input that can be read only once — stdin, or a path that is a pipe or a device
 * (`-f <(lic state export)`, a FIFO: isOnePass) — is copied to a private temporary file
 * first (openSpool: `lic-state-*`, 0600; input past MAX_STATE_BYTES is the same UsageError
 * as a file's), then read as a regular file is (streamed when it is in export's block
 * style), every message still naming `stdin` or the path. The copy goes on every way out,
 * and at once on SIGINT/SIGTERM, after which this throws InterruptedError (exit 130).
 */
export async function readStateFile(path: string, ctx: StateFileContext): Promise<DesiredState> {
  if (path === '-') return readCopy('stdin', ctx.cwd, stdinInput(ctx, 'the state file'), ctx);
  const base = dirname(resolve(ctx.cwd, path));
  if (await isOnePass(path)) return readCopy(path, base, await openOnePass(path, (e) => openError(path, path, e)), ctx);
  return readStateFrom(path, path, base);
}

/** readStateFile for one-pass input (`source`: `stdin` or its path), read through a private copy. */
async function readCopy(source: string, base: string, input: OnePassInput, ctx: StateFileContext): Promise<DesiredState> {
  const spool = await openSpool(ctx, 'lic-state-', 'state.yaml', source, input);
  try {
    let total = 0;
    // one byte past the limit is proof enough: leaving the loop stops reading the input
    for await (const c of spool.copy()) if ((total += c.length) > MAX_STATE_BYTES) throw tooLarge(source);
    const read = await readStateFrom(spool.path, source, base, spool.checkInterrupted);
    spool.checkInterrupted();
    return read;
  } catch (e) {
    // whatever failed after the signal (the copy removed under the reader): the interruption is the news
    spool.checkInterrupted();
    throw e;
  } finally {
    await spool.close();
  }
}

/**
 * readStateFile for the file at `path`, named `source` in every message, its relative
 * dataFile paths relative to `base`; `check` (a spooled stdin's checkInterrupted) is called
 * after each read of a streamed file.
 */
async function readStateFrom(path: string, source: string, base: string, check?: () => void): Promise<DesiredState> {
  const yaml: Yaml = await import('yaml');
  const { Value } = await import('typebox/value');
  const finish = async (fast: BlockResult): Promise<DesiredState> => {
    if (fast.problems.length) throw invalid(fast.problems);
    await checkDataFiles(fast.out, fast.problems);
    if (fast.problems.length) throw invalid(fast.problems);
    return fast.out;
  };
  const streamed = await streamStateFile(path, source, (fh) => streamBlockStyle(fh, yaml, Value, source, base, check));
  if (streamed && streamed !== 'whole') return finish({ ...streamed, out: { ...streamed.out, readAs: 'streamed' } });
  // a file not in the block style or not in export's order (or one that became a pipe since
  // readStateFile looked: isOnePass): read whole (the bytes
  // held by no variable here, so they go once read: the records, or the text of the whole document)
  const fromBytes = (bytes: Buffer): BlockResult | string => {
    if (!isUtf8(bytes)) throw notUtf8(source);
    return readBlockStyle(yaml, Value, bytes, source, base) ?? new TextDecoder('utf-8').decode(bytes);
  };
  const read = fromBytes(await readStateBytes(path, source));
  if (typeof read !== 'string') return finish({ ...read, out: { ...read.out, readAs: 'bytes' } });
  // any other shape: the whole document at once
  const text = read;
  const lines = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems = new Problems();
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : lines.linePos(offset).line);
  for (const e of doc.errors) problems.push(`${source}:${lineAt(e.pos[0])}: ${e.message.split('\n')[0]}`);
  if (problems.length) throw invalid(problems);
  const nodeLine = (p: (string | number)[]): number => {
    for (let n = p.length; n >= 0; n--) {
      const node = doc.getIn(p.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node && typeof node === 'object' && node.range) return lineAt(node.range[0]);
      // a pair's value may be a scalar without range: ask for the map holding it
    }
    return 1;
  };
  /** The text a value was written as (`1.0`, `0000000000000012`): what a hint to quote it must keep. */
  const written = (p: (string | number)[]): string | undefined => {
    const node = doc.getIn(p, true) as { range?: [number, number, number] } | undefined;
    return node && typeof node === 'object' && node.range ? text.slice(node.range[0], node.range[1]) : undefined;
  };
  let root: unknown;
  try {
    root = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    // the yaml package refuses an alias that expands past maxAliasCount nodes (a "billion laughs")
    if (!(e instanceof ReferenceError)) throw e;
    throw invalid([`${source}:${lineAt(amplifyingAlias(yaml, doc))}: ${ALIAS_PROBLEM}`]);
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw invalid([`${source}:1: expected a mapping with version and the sections ${STATE_NOUNS.join(', ')}`]);
  }
  const out: DesiredState = { source, readAs: 'document' };
  const strings = new Strings();
  const top = root as Record<string, unknown>;
  for (const k of Object.keys(top)) {
    if (k !== 'version' && !(STATE_NOUNS as readonly string[]).includes(k))
      problems.push(`${source}:${nodeLine([k])}: unknown section ${k} (sections: version, ${STATE_NOUNS.join(', ')})`);
  }
  if (top.version !== STATE_VERSION)
    problems.push(
      `${source}:${nodeLine(['version'])}: version: expected ${STATE_VERSION}${top.version === undefined ? ' (missing)' : `, got ${JSON.stringify(top.version)}`}`,
    );
  for (const noun of STATE_NOUNS) {
    if (!(noun in top)) continue;
    const list = top[noun] ?? [];
    if (!Array.isArray(list)) {
      problems.push(`${source}:${nodeLine([noun])}: ${noun}: expected a list of records`);
      continue;
    }
    const section = newSection(Value, noun, source, base, problems, strings);
    list.forEach((item: unknown, i) =>
      addRecord(
        section,
        item,
        i,
        (field) => nodeLine(field ? [noun, i, field] : [noun, i]),
        (field) => written([noun, i, field]),
      ),
    );
    out[noun] = section.checked;
  }
  if (problems.length) throw invalid(problems);
  await checkDataFiles(out, problems);
  if (problems.length) throw invalid(problems);
  return out;
}

/** The records of one section being checked: what addRecord needs and what it fills in. */
interface SectionCheck {
  Value: TypeBoxValue;
  noun: StateNoun;
  source: string;
  base: string;
  problems: Problems;
  /** the copies the checked records keep of their strings */
  strings: Strings;
  /** which checked record holds each identity, for the record named twice */
  seen: Identities;
  checked: { line: number; rec: never }[];
}

/**
 * Which record of a section's checked ones holds each identity: their indexes in an
 * open-addressing table keyed by a 32-bit hash of the identity (FNV-1a), a record's
 * identity compared only when the hashes are equal. 8 bytes a slot, at most half of them
 * used: for 376,000 keys 8 MiB, where a Map of the identities took ~15 MiB, and twice that
 * while it grew.
 */
class Identities {
  private slots = new Int32Array(1024).fill(-1);
  private hashes = new Int32Array(1024);
  private size = 0;
  /** `keyOf(i)`: the identity of the section's checked record `i` */
  constructor(private readonly keyOf: (i: number) => string) {}

  private static hash(s: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return h | 0;
  }

  /** The index of the record holding `key`, or -1. */
  find(key: string): number {
    const h = Identities.hash(key);
    const mask = this.slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = this.slots[i]!;
      if (at === -1) return -1;
      if (this.hashes[i] === h && this.keyOf(at) === key) return at;
    }
  }

  /** Records that the record `index` holds `key` (not held by another: find first). */
  add(key: string, index: number): void {
    if ((this.size + 1) * 2 > this.slots.length) {
      const [slots, hashes] = [this.slots, this.hashes];
      this.slots = new Int32Array(slots.length * 2).fill(-1);
      this.hashes = new Int32Array(slots.length * 2);
      for (let i = 0; i < slots.length; i++) if (slots[i] !== -1) this.put(hashes[i]!, slots[i]!);
    }
    this.put(Identities.hash(key), index);
    this.size++;
  }

  private put(h: number, index: number): void {
    const mask = this.slots.length - 1;
    let i = h & mask;
    while (this.slots[i] !== -1) i = (i + 1) & mask;
    this.slots[i] = index;
    this.hashes[i] = h;
  }
}

const newSection = (
  Value: TypeBoxValue,
  noun: StateNoun,
  source: string,
  base: string,
  problems: Problems,
  strings: Strings,
): SectionCheck => ({
  Value,
  noun,
  source,
  base,
  problems,
  strings,
  ...withIdentities(noun),
});

/** A section's checked records and the index of their identities. */
function withIdentities(noun: StateNoun): Pick<SectionCheck, 'seen' | 'checked'> {
  const checked: SectionCheck['checked'] = [];
  return { checked, seen: new Identities((i) => matchKey(noun, checked[i]!.rec)) };
}

/**
 * Checks record `i` of a section (`lineOf(field?)`: the line of the record or of its field;
 * `written(field)`: the field's text as written, for a hint to quote it) and keeps it, or adds
 * its problems; none once MAX_PROBLEMS were found.
 */
function addRecord(
  c: SectionCheck,
  item: unknown,
  i: number,
  lineOf: (field?: string) => number,
  written?: (field: string) => string | undefined,
): void {
  const { noun, problems } = c;
  if (problems.length >= MAX_PROBLEMS) return;
  const at = (field?: string) => `${c.source}:${lineOf(field)}: ${noun}[${i}]${field ? `.${field}` : ''}`;
  const rec = checkRecord(c.Value, noun, item, at, c.base, problems, c.strings, written);
  if (!rec) return;
  const key = matchKey(noun, rec);
  const before = c.seen.find(key);
  const line = lineOf();
  if (before !== -1) {
    problems.push(`${at()}: ${identityOf(noun, rec)} is already on line ${c.checked[before]!.line}; a state file names each record once`);
    return;
  }
  c.seen.add(key, c.checked.length);
  c.checked.push({ line, rec: rec as never });
}

/** Bytes of the records parsed at a time: about 16 KiB (a record is never cut), so a batch's document tree (~40 times that) dies young. */
const BATCH_BYTES = 16 * 1024;

/** A batch of records: [start, end) of the file's bytes, and the line it starts on. */
interface Batch {
  start: number;
  end: number;
  line: number;
}

/** A section of a block-style state file: its header's line and, when cut whole (readBlockStyle), its batches. */
interface BlockSection {
  noun: StateNoun;
  line: number;
  batches: Batch[];
}

/** The UTF-8 byte order mark, which the whole-document reading (TextDecoder) drops too. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Cuts a state file (its bytes, valid UTF-8) in the block style `lic state export` writes
 * (top-level `version: …`, `keys:` then `- ` records, each record's other lines indented
 * more than its dash, comments and blank lines anywhere) into its sections and batches of
 * about BATCH_BYTES, fed a run of whole lines at a time. Lines are cut at `\n` bytes, which
 * UTF-8 never uses inside a character, so a batch decodes alone and line numbers are the
 * text's. `feed` is false for anything else (flow style, JSON, tabs, document markers,
 * unknown sections, a section twice: the whole-document reading handles and reports those),
 * or when `onSection` or `onBatch` said to stop. Without `onBatch` a section keeps its batches.
 */
class BlockCutter {
  version?: { text: string; line: number };
  readonly sections: BlockSection[] = [];
  /** file offset where the open batch starts; -1 when none is open */
  batchStart = -1;
  private cur: BlockSection | undefined;
  /** the indent of the current section's dashes; -1 before its first record */
  private dash = -1;
  private batchLine = 0;
  private line = 0;

  constructor(
    private readonly onSection?: (s: BlockSection) => boolean,
    private readonly onBatch?: (s: BlockSection, b: Batch) => boolean,
  ) {}

  /** Closes the open batch at file offset `at`; false when onBatch said to stop. */
  private close(at: number): boolean {
    const b = this.batchStart;
    this.batchStart = -1;
    if (!this.cur || b < 0) return true;
    const batch = { start: b, end: at, line: this.batchLine };
    if (!this.onBatch) return (this.cur.batches.push(batch), true);
    return this.onBatch(this.cur, batch);
  }

  /** Feeds the lines in bytes [from, to) of `buf`, whose byte 0 is at file offset `offset`; the last one may lack its `\n` only at the file's end. */
  feed(buf: Buffer, offset: number, from: number, to: number): boolean {
    for (let at = from; at < to;) {
      let nl = buf.indexOf(10, at);
      if (nl === -1 || nl > to) nl = to;
      this.line++;
      const start = at;
      at = nl + 1;
      let indent = 0;
      while (start + indent < nl && buf[start + indent] === 32) indent++;
      const c = buf[start + indent];
      // a blank or comment line belongs to whatever is around it
      if (start + indent >= nl || c === 13 || c === 35) continue;
      if (c === 9) return false;
      const next = buf[start + indent + 1];
      const isDash = c === 45 && (start + indent + 1 >= nl || next === 32 || next === 13);
      if (this.cur && isDash && (this.dash === -1 || indent === this.dash)) {
        this.dash = indent;
        if (this.batchStart < 0) ((this.batchStart = offset + start), (this.batchLine = this.line));
        else if (offset + start - this.batchStart >= BATCH_BYTES) {
          if (!this.close(offset + start)) return false;
          ((this.batchStart = offset + start), (this.batchLine = this.line));
        }
        continue;
      }
      if (this.cur && this.dash >= 0 && indent > this.dash) continue;
      if (indent !== 0) return false;
      // a top-level line: version, or a section's header
      if (!this.close(offset + start)) return false;
      this.cur = undefined;
      this.dash = -1;
      // a header is short: a longer top-level line is none (and is not decoded here)
      if (nl - start > 1024) return false;
      // a CRLF file's lines end in \r: the same header (and `version: 1`, not `1\r`) as an LF file's
      const l = buf.toString('utf8', start, nl).replace(/\r$/, '');
      const m = /^(version|resources|assemblies|keys):(\s*(?:#.*)?|\s+\[\]\s*(?:#.*)?)$/.exec(l) ?? /^(version):\s.*$/.exec(l);
      if (!m) return false;
      const key = m[1]!;
      if (key === 'version') {
        if (this.version) return false;
        this.version = { text: l, line: this.line };
        continue;
      }
      if (this.sections.some((x) => x.noun === key)) return false;
      const section: BlockSection = { noun: key as StateNoun, line: this.line, batches: [] };
      this.sections.push(section);
      if (this.onSection && !this.onSection(section)) return false;
      // `keys: []` holds no record; `keys:` takes the dashes that follow
      if (!/\[\]/.test(m[2] ?? '')) this.cur = section;
    }
    return true;
  }

  /** The end of the file, at file offset `size`: closes the open batch (false when onBatch said to stop). */
  end(size: number): boolean {
    return this.close(size);
  }
}

/** The version line's problem, if any (pushed before any record's, as the whole-document reading does). */
function checkVersion(yaml: Yaml, version: { text: string; line: number } | undefined, source: string, problems: Problems): boolean {
  let value: unknown;
  if (version) {
    const doc = yaml.parseDocument(version.text);
    // `version: [1` and the like: the whole-document reading reports it with its line
    if (doc.errors.length) return false;
    value = (doc.toJS() as { version?: unknown } | null)?.version;
  }
  if (value !== STATE_VERSION)
    problems.push(
      `${source}:${version?.line ?? 1}: version: expected ${STATE_VERSION}${value === undefined ? ' (missing)' : `, got ${JSON.stringify(value)}`}`,
    );
  return true;
}

/**
 * Parses and checks one batch of a section (`text`, starting on line `b.line`), its first
 * record being the section's `i`th; the number of records, or undefined when the batch is not
 * YAML on its own (an alias to another batch, a syntax error). Its text and document tree are
 * garbage on return, the records keeping copies of their strings (Strings): collectBatch.
 */
function checkBatch(yaml: Yaml, section: SectionCheck, text: string, b: Batch, i: number): number | undefined {
  const lc = new yaml.LineCounter();
  const doc = yaml.parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length || !yaml.isSeq(doc.contents)) return undefined;
  let items: unknown[];
  try {
    items = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown[];
  } catch {
    return undefined;
  }
  const seq = doc.contents;
  const lineOf = (offset: number | undefined) => b.line - 1 + (offset === undefined ? 1 : lc.linePos(offset).line);
  const fieldNode = (j: number, field: string) => seq.getIn([j, field], true) as { range?: [number, number, number] } | undefined;
  items.forEach((item, j) => {
    const node = seq.items[j] as { range?: [number, number, number] } | undefined;
    addRecord(
      section,
      item,
      i + j,
      (field) => {
        const f = field ? fieldNode(j, field) : undefined;
        return lineOf((f && typeof f === 'object' && f.range ? f : node)?.range?.[0]);
      },
      (field) => {
        const f = fieldNode(j, field);
        return f && typeof f === 'object' && f.range ? text.slice(f.range[0], f.range[1]) : undefined;
      },
    );
  });
  return items.length;
}

/**
 * After checkBatch returned (its tree no longer referenced from its frame): the batch's
 * garbage collected while young (collectAfterBurst), and the old generation now and then.
 */
function collectBatch(b: Batch): void {
  collectAfterBurst();
  // a batch's text counts four times: some of its garbage reaches the old generation all the
  // same (~10 MB a MiB of file, measured), so a full collection runs every MiB of file read
  // (60 MB: 206-215 MiB peak, against 250-260 MiB every 4 MiB on busy cores)
  collectAfterRecordData(4 * (b.end - b.start));
}

/** What reading a state file in the block style gives: the checked records and the problems found. */
interface BlockResult {
  out: DesiredState;
  problems: Problems;
}

/**
 * readStateFile for a block-style file (BlockCutter) in memory: each batch decoded and
 * parsed alone, so neither the file's whole text nor the yaml package's document tree (tens
 * of times the text's size) ever exists. Undefined when the file is not in that style, or a
 * batch is not YAML on its own: the caller then reads the whole document, which reports any
 * problem with its line.
 */
function readBlockStyle(yaml: Yaml, Value: TypeBoxValue, bytes: Buffer, source: string, base: string): BlockResult | undefined {
  const cut = new BlockCutter();
  if (!cut.feed(bytes, 0, bytes.subarray(0, 3).equals(BOM) ? 3 : 0, bytes.length) || !cut.end(bytes.length)) return undefined;
  const problems = new Problems();
  const out: DesiredState = { source };
  if (!checkVersion(yaml, cut.version, source, problems)) return undefined;
  const strings = new Strings();
  for (const noun of STATE_NOUNS) {
    const sec = cut.sections.find((x) => x.noun === noun);
    if (!sec) continue;
    const section = newSection(Value, noun, source, base, problems, strings);
    let i = 0;
    for (const b of sec.batches) {
      const n = checkBatch(yaml, section, bytes.toString('utf8', b.start, b.end), b, i);
      if (n === undefined) return undefined;
      collectBatch(b);
      i += n;
    }
    out[noun] = section.checked;
  }
  return { out, problems };
}

/** Bytes read from a state file at a time by streamBlockStyle: 1 MiB (the window grows for a longer record). */
const READ_BYTES = 1024 * 1024;

/**
 * readStateFile for a regular file in the block style, read as a stream: each batch checked
 * as soon as its bytes are read, so only the open batch's bytes (plus a read of READ_BYTES)
 * are held, never the file's (a 60 MB file of 376,000 API keys: bench/reliability.md). This
 * needs the order `lic state export` writes, `version` first and the sections in the order
 * of STATE_NOUNS, so that every problem is found in the order readBlockStyle finds it; a file
 * in another order, or not in the block style, gives 'whole': read it whole. Throws the
 * UsageError of a file over MAX_STATE_BYTES or not UTF-8, as readStateFile does, and what
 * `check` throws (called after each read).
 */
async function streamBlockStyle(
  fh: FileHandle,
  yaml: Yaml,
  Value: TypeBoxValue,
  source: string,
  base: string,
  check?: () => void,
): Promise<BlockResult | 'whole'> {
  const problems = new Problems();
  const out: DesiredState = { source };
  const strings = new Strings();
  let win = Buffer.allocUnsafe(READ_BYTES);
  /** the file offset of win[0] */
  let offset = 0;
  let filled = 0;
  /** win[0, fed) has been fed to the cutter */
  let fed = 0;
  let section: SectionCheck | undefined;
  let i = 0;
  let versionChecked = false;
  const cut = new BlockCutter(
    (s) => {
      // version first, the sections in STATE_NOUNS order: else read whole (readBlockStyle orders them)
      if (!cut.version) return false;
      if (section && STATE_NOUNS.indexOf(s.noun) < STATE_NOUNS.indexOf(section.noun)) return false;
      if (!versionChecked && !checkVersion(yaml, cut.version, source, problems)) return false;
      versionChecked = true;
      section = newSection(Value, s.noun, source, base, problems, strings);
      out[s.noun] = section.checked;
      i = 0;
      return true;
    },
    (_, b) => {
      const n = checkBatch(yaml, section!, win.toString('utf8', b.start - offset, b.end - offset), b, i);
      if (n === undefined) return false;
      collectBatch(b);
      i += n;
      return true;
    },
  );
  for (let total = 0; ;) {
    if (filled === win.length) {
      // keep the open batch and the line being read; move them to the front, in a larger window if they fill half of it
      const keep = cut.batchStart >= 0 ? cut.batchStart - offset : fed;
      const next = (filled - keep) * 2 > win.length ? Buffer.allocUnsafe(win.length * 2) : win;
      win.copy(next, 0, keep, filled);
      win = next;
      offset += keep;
      filled -= keep;
      fed -= keep;
    }
    const { bytesRead } = await fh.read(win, filled, win.length - filled, null);
    check?.();
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > MAX_STATE_BYTES) throw tooLarge(source);
    if (offset === 0 && fed === 0 && filled < 3 && filled + bytesRead >= 3 && win.subarray(0, 3).equals(BOM)) fed = 3;
    filled += bytesRead;
    const nl = win.lastIndexOf(10, filled - 1);
    if (nl < fed) continue;
    if (!isUtf8(win.subarray(fed, nl + 1))) throw notUtf8(source);
    if (!cut.feed(win, offset, fed, nl + 1)) return 'whole';
    fed = nl + 1;
  }
  if (!isUtf8(win.subarray(fed, filled))) throw notUtf8(source);
  if (!cut.feed(win, offset, fed, filled) || !cut.end(offset + filled)) return 'whole';
  if (!versionChecked && !checkVersion(yaml, cut.version, source, problems)) return 'whole';
  return { out, problems };
}

/** Most nodes one alias may stand for when the file is read (the yaml package's maxAliasCount; its default). */
const MAX_ALIAS_COUNT = 100;
const ALIAS_PROBLEM = `an alias stands for more than ${MAX_ALIAS_COUNT} nodes (anchors and aliases nested to multiply a document): not a state file`;

/**
 * Where an alias bomb starts: the offset of the first alias whose anchored node holds aliases
 * itself (the multiplying one), else of the first alias; undefined when there is none.
 */
function amplifyingAlias(yaml: Yaml, doc: import('yaml').Document): number | undefined {
  let first: number | undefined;
  let found: number | undefined;
  yaml.visit(doc, {
    Alias(_, node) {
      first ??= node.range?.[0];
      const target = node.resolve(doc);
      let nested = false;
      if (target && yaml.isCollection(target))
        yaml.visit(target, {
          Alias() {
            nested = true;
            return yaml.visit.BREAK;
          },
        });
      if (nested) {
        found = node.range?.[0];
        return yaml.visit.BREAK;
      }
    },
  });
  return found ?? first;
}

/** Problems listed in the message of a bad state file; the rest are counted. */
const SHOWN_PROBLEMS = 10;
/** Problems after which the records left are not checked: memory and time bounded whatever the file's shape. */
const MAX_PROBLEMS = 100;

/** The UsageError of a state file over MAX_STATE_BYTES. */
const tooLarge = (source: string) =>
  new UsageError(
    `${source}: more than the limit of ${MAX_STATE_BYTES} bytes (64 MiB) for a state file; keep resource data in files (lic state export --data-dir DIR)`,
  );

/** The UsageError of a state file that is not UTF-8. */
const notUtf8 = (source: string) => new UsageError(`${source}: not UTF-8 text`);

/** The UsageError of the state file at `path` that can't be read (`-f FILE: no such file`; `stdin: …` for stdin's copy), or of a directory given as one. */
function openError(path: string, source: string, e: unknown): UsageError {
  if (e instanceof UsageError) return e;
  return new UsageError(`${source === path ? `-f ${path}` : source}: ${describeFsError(e)}`);
}

/**
 * Opens the state file `path` and, when it is a regular file of at most MAX_STATE_BYTES,
 * gives it to `read`; undefined for anything else (a pipe that was a file when readStateFile
 * looked: readStateBytes reads it whole, with its limit). Throws the UsageError of a directory, a file that can't be opened or one
 * over the limit (named `source`: stdin's copy is `stdin`).
 */
async function streamStateFile<T>(path: string, source: string, read: (fh: FileHandle) => Promise<T>): Promise<T | undefined> {
  let fh: FileHandle;
  try {
    if ((await stat(path)).isDirectory()) throw new UsageError(`${source}: is a directory; give the state file`);
    fh = await open(path, 'r');
  } catch (e) {
    throw openError(path, source, e);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return undefined;
    if (st.size > MAX_STATE_BYTES) throw tooLarge(source);
    return await read(fh);
  } finally {
    await fh.close();
  }
}

/** The state file's bytes: read whole, at most MAX_STATE_BYTES (a UsageError naming `source` past it, or saying why it can't be read). */
async function readStateBytes(path: string, source: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    if ((await stat(path)).isDirectory()) throw new UsageError(`${source}: is a directory; give the state file`);
    bytes = await readFileBounded(path, MAX_STATE_BYTES);
  } catch (e) {
    throw openError(path, source, e);
  }
  if (bytes.length > MAX_STATE_BYTES) throw tooLarge(source);
  return bytes;
}

/** Distinct values kept by Strings for sharing: past this many, a value is copied but not shared (the table stays small whatever the file holds). */
const MAX_SHARED_STRINGS = 16_384;

/**
 * The strings a checked record keeps. V8 keeps a substring of 13 characters or more as a view
 * of the string it was cut from, so one field parsed from a batch would keep the batch's whole
 * text alive, and every batch's together are the file's text again: `own` copies such a value
 * (JSON's round trip makes a new flat string). `shared` also gives one copy to equal values of
 * a field that repeats (an owner, an expiry, a type), up to MAX_SHARED_STRINGS distinct ones.
 */
class Strings {
  private readonly table = new Map<string, string>();
  /** `s`, holding no reference to the text it was parsed from. */
  own(s: string): string {
    return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
  }
  /** `s` as own gives it, the same string for equal values. */
  shared(s: string): string {
    const had = this.table.get(s);
    if (had !== undefined) return had;
    const mine = this.own(s);
    if (this.table.size < MAX_SHARED_STRINGS) this.table.set(mine, mine);
    return mine;
  }
}

/** The problems of a state file: counted, the first SHOWN_PROBLEMS kept (a file of a million bad records holds ten messages). */
class Problems {
  readonly shown: string[] = [];
  length = 0;
  push(p: string): void {
    if (this.length++ < SHOWN_PROBLEMS) this.shown.push(p);
  }
}

/** The UsageError of a file with problems: the first SHOWN_PROBLEMS listed, then how many more (and where checking stopped). */
function invalid(problems: Problems | string[]): UsageError {
  const shown = Array.isArray(problems) ? problems.slice(0, SHOWN_PROBLEMS) : problems.shown;
  const rest = problems.length - shown.length;
  const more = rest > 0 ? `\n  … and ${rest} more` : '';
  const stopped = problems.length >= MAX_PROBLEMS ? ` (stopped checking after ${MAX_PROBLEMS} problems)` : '';
  return new UsageError(`invalid state file; nothing was sent:\n  ${shown.join('\n  ')}${more}${stopped}`);
}

/** TypeBox's value checker (typebox/value). */
type TypeBoxValue = typeof import('typebox/value').Value;

/**
 * The quoted form a hint suggests for a value YAML read as a number or boolean: the text as
 * written (`'1.0'`, not the number's `'1'`; a token's leading zeros kept), and for an assembly
 * `version` of fewer than four parts the a.b.c.d it means (`1.0` → `'1.0.0.0'`), which is what
 * the file's version rule accepts.
 */
function quoted(field: string, text: string): string {
  let t = text.trim();
  if (field === 'version' && /^\d+(\.\d+){0,3}$/.test(t)) while (t.split('.').length < 4) t += '.0';
  return `'${t}'`;
}

/** One record checked against its schema and rules; its problems pushed with `at(field)` naming file, line and field. */
function checkRecord(
  Value: TypeBoxValue,
  noun: StateNoun,
  item: unknown,
  at: (field?: string) => string,
  base: string,
  problems: Problems,
  strings: Strings,
  written?: (field: string) => string | undefined,
): KeyState | ResourceState | AssemblyState | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    problems.push(`${at()}: expected a mapping (one record)`);
    return undefined;
  }
  const schema = SCHEMAS[noun];
  const fields = Object.keys(schema.properties);
  const v = item as Record<string, unknown>;
  const before = problems.length;
  for (const k of Object.keys(v)) {
    if (fields.includes(k)) continue;
    if (/^password$/i.test(k)) problems.push(`${at(k)}: a state file never carries passwords; set them with lic resources update`);
    else if (k === 'id' || k === 'mappingFileId' || k === 'keyPrefix' || k === 'createdAt' || k === 'updatedAt')
      problems.push(`${at(k)}: ${k} is the service's own and differs between services; leave it out (fields: ${fields.join(', ')})`);
    else problems.push(`${at(k)}: unknown field (fields: ${fields.join(', ')})`);
  }
  for (const r of schema.required) if (!(r in v)) problems.push(`${at()}: field ${r} is missing`);
  if (problems.length > before) return undefined;
  if (!Value.Check(schema, { ...v })) {
    for (const e of Value.Errors(schema, v)) {
      const field = e.instancePath.replace(/^\//, '').split('/')[0] ?? '';
      const got = v[field];
      const hint =
        typeof got === 'number' || typeof got === 'boolean' ? ` (quote it: ${quoted(field, written?.(field) ?? String(got))})` : '';
      problems.push(`${at(field || undefined)}: ${e.message}${hint}`);
      break;
    }
    return undefined;
  }
  const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : '');
  // what the record keeps: its identity and data copied, the fields that repeat shared (Strings)
  const own = (k: string) => strings.own(str(k));
  const shared = (k: string) => strings.shared(str(k));
  if (noun === 'keys') {
    const exp = v.expireDate as string | null | undefined;
    let expireDate: string | null = null;
    if (typeof exp === 'string') {
      const ms = parseRfc3339(exp, { dateTimeOnly: true });
      if (ms === undefined) problems.push(`${at('expireDate')}: expected an RFC 3339 time such as 2027-01-31T00:00:00Z, or null for never`);
      else expireDate = strings.shared(new Date(ms).toISOString());
    }
    return {
      name: own('name'),
      ownerId: shared('ownerId'),
      permissions: v.permissions as number,
      description: shared('description'),
      expireDate,
      revoked: v.revoked === true,
    };
  }
  if (noun === 'resources') {
    if ('data' in v && 'dataFile' in v) problems.push(`${at('dataFile')}: give data (base64) or dataFile (a path), not both`);
    if (typeof v.data === 'string' && !isBase64(v.data))
      problems.push(`${at('data')}: not standard base64 (A-Z a-z 0-9 + / with = padding)`);
    else if (typeof v.data === 'string' && Buffer.byteLength(v.data, 'base64') > MAX_DATA_BYTES)
      problems.push(`${at('data')}: more than the limit of ${MAX_DATA_BYTES} bytes (7 MiB)`);
    const data: DataRef = typeof v.dataFile === 'string' ? { file: resolve(base, v.dataFile) } : { base64: own('data') };
    return {
      code: own('code'),
      name: shared('name'),
      type: shared('type'),
      description: shared('description'),
      source: shared('source'),
      dataFormat: shared('dataFormat'),
      data,
    };
  }
  const version = str('version');
  if (version !== '' && !VERSION_RE.test(version)) problems.push(`${at('version')}: expected a.b.c.d, each 0..65535 (e.g. 4.2.0.0)`);
  const token = str('publicKeyToken');
  if (token !== '' && !/^[0-9a-fA-F]{16}$/.test(token))
    problems.push(`${at('publicKeyToken')}: expected 16 hex digits, or "" when not strong-named`);
  const culture = str('culture');
  return {
    name: shared('name'),
    version: strings.shared(version),
    culture: culture.toLowerCase() === 'neutral' ? '' : strings.shared(culture),
    publicKeyToken: strings.shared(token.toLowerCase()),
    mappingFile: shared('mappingFile'),
    debugSymbolsKey: shared('debugSymbolsKey'),
  };
}

/** Each dataFile must be a readable file of at most MAX_DATA_BYTES (stat only: the bytes are read one at a time later). */
async function checkDataFiles(state: DesiredState, problems: Problems): Promise<void> {
  for (const { line, rec } of state.resources ?? []) {
    if (problems.length >= MAX_PROBLEMS) return;
    if (!('file' in rec.data)) continue;
    const f = rec.data.file;
    try {
      const st = await stat(f);
      if (!st.isFile()) problems.push(`${state.source}:${line}: resources ${rec.code}.dataFile: ${f} is not a file`);
      else if (st.size > MAX_DATA_BYTES)
        problems.push(
          `${state.source}:${line}: resources ${rec.code}.dataFile: ${f} is ${st.size} bytes, more than the limit of ${MAX_DATA_BYTES} (7 MiB)`,
        );
    } catch (e) {
      problems.push(`${state.source}:${line}: resources ${rec.code}.dataFile: ${f}: ${describeFsError(e)}`);
    }
  }
}

/** The bytes of a resource's data: decoded base64, or the file read (at most MAX_DATA_BYTES; UsageError when it changed meanwhile). */
export async function readData(ref: DataRef): Promise<Buffer> {
  if ('base64' in ref) return Buffer.from(ref.base64, 'base64');
  let bytes: Buffer;
  try {
    bytes = await readFileBounded(ref.file, MAX_DATA_BYTES);
  } catch (e) {
    throw new UsageError(`dataFile ${ref.file}: ${describeFsError(e)}`);
  }
  if (bytes.length > MAX_DATA_BYTES) throw new UsageError(`dataFile ${ref.file}: more than the limit of ${MAX_DATA_BYTES} bytes (7 MiB)`);
  return bytes;
}
