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
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../cli/errors.js';
import { collectAfterRecordData } from '../../cli/memory.js';
import { describeFsError, readFileBounded } from '../../cli/files.js';
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
export const MAX_STATE_BYTES = 64 * 1024 * 1024;

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

/**
 * Reads and checks the state file `path` (`-` = stdin): YAML 1.2 or JSON, UTF-8, at most
 * MAX_STATE_BYTES. Every record is checked against its schema (built from src/schema/
 * above) before anything is sent, and so are the rules a schema can't say: an RFC 3339
 * expireDate, a version a.b.c.d, a 16-hex-digit token, base64 data, a dataFile that
 * exists and is at most MAX_DATA_BYTES, each identity once, and a mappingFile naming a
 * resource of the file or of the service (`serviceCodes`, checked later by the plan).
 * A relative dataFile is relative to the state file's directory, or to `cwd` (the Context's)
 * for a state file on stdin. Throws UsageError (exit 2) listing up to 10 problems as
 * `FILE:LINE: section[i].field: …`, then how many more; checking stops at the 100th.
 */
export async function readStateFile(path: string, readStdin: () => Promise<Buffer>, cwd: string): Promise<DesiredState> {
  const source = path === '-' ? 'stdin' : path;
  const text = await readStateText(path, readStdin, source);
  const yaml: Yaml = await import('yaml');
  const { Value } = await import('typebox/value');
  const base = path === '-' ? cwd : dirname(resolve(cwd, path));
  const fast = readBlockStyle(yaml, Value, text, source, base);
  if (fast) {
    if (fast.problems.length) throw invalid(fast.problems);
    await checkDataFiles(fast.out, fast.problems);
    if (fast.problems.length) throw invalid(fast.problems);
    return fast.out;
  }
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
  const out: DesiredState = { source };
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
    const section = newSection(Value, noun, source, base, problems);
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
  /** each identity's line, for the record named twice */
  seen: Map<string, number>;
  checked: { line: number; rec: never }[];
}

const newSection = (Value: TypeBoxValue, noun: StateNoun, source: string, base: string, problems: Problems): SectionCheck => ({
  Value,
  noun,
  source,
  base,
  problems,
  seen: new Map(),
  checked: [],
});

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
  const rec = checkRecord(c.Value, noun, item, at, c.base, problems, written);
  if (!rec) return;
  const key = matchKey(noun, rec);
  const before = c.seen.get(key);
  const line = lineOf();
  if (before !== undefined) {
    problems.push(`${at()}: ${identityOf(noun, rec)} is already on line ${before}; a state file names each record once`);
    return;
  }
  c.seen.set(key, line);
  c.checked.push({ line, rec: rec as never });
}

/** Text of the records parsed at a time by readBlockStyle: about 64 KiB (a record is never cut), so its document tree (~40 times that) dies young. */
const BATCH_CHARS = 64 * 1024;

/** A section of a block-style state file as blockSections cuts it: its records' batches, each [start, end) of the text with its first line. */
interface BlockSection {
  noun: StateNoun;
  line: number;
  batches: { start: number; end: number; line: number }[];
}

/**
 * Cuts a state file in the block style `lic state export` writes (top-level `version: …`,
 * `keys:` then `- ` records, each record's other lines indented more than its dash, comments
 * and blank lines anywhere) into its sections and batches of about BATCH_CHARS. Undefined
 * for anything else (flow style, JSON, tabs, documents markers, unknown sections, a section
 * twice): the whole-document reading handles and reports those.
 */
function blockSections(text: string): { version?: { text: string; line: number }; sections: BlockSection[] } | undefined {
  const sections: BlockSection[] = [];
  let version: { text: string; line: number } | undefined;
  let cur: BlockSection | undefined;
  /** the indent of the current section's dashes; -1 before its first record */
  let dash = -1;
  let batchStart = -1;
  let batchLine = 0;
  const close = (at: number) => {
    if (cur && batchStart >= 0) cur.batches.push({ start: batchStart, end: at, line: batchLine });
    batchStart = -1;
  };
  let line = 0;
  for (let at = 0; at < text.length;) {
    let nl = text.indexOf('\n', at);
    if (nl === -1) nl = text.length;
    line++;
    const start = at;
    at = nl + 1;
    let indent = 0;
    while (text.charCodeAt(start + indent) === 32) indent++;
    const c = text.charCodeAt(start + indent);
    // a blank or comment line belongs to whatever is around it
    if (start + indent >= nl || c === 13 || c === 35) continue;
    if (c === 9) return undefined;
    const isDash =
      c === 45 && (start + indent + 1 >= nl || text.charCodeAt(start + indent + 1) === 32 || text.charCodeAt(start + indent + 1) === 13);
    if (cur && isDash && (dash === -1 || indent === dash)) {
      dash = indent;
      if (batchStart < 0) ((batchStart = start), (batchLine = line));
      else if (start - batchStart >= BATCH_CHARS) (close(start), (batchStart = start), (batchLine = line));
      continue;
    }
    if (cur && dash >= 0 && indent > dash) continue;
    if (indent !== 0) return undefined;
    // a top-level line: version, or a section's header
    close(start);
    cur = undefined;
    dash = -1;
    const l = text.slice(start, nl);
    const m = /^(version|resources|assemblies|keys):(\s*(?:#.*)?|\s+\[\]\s*(?:#.*)?)\r?$/.exec(l) ?? /^(version):\s.*$/.exec(l);
    if (!m) return undefined;
    const key = m[1]!;
    if (key === 'version') {
      if (version) return undefined;
      version = { text: l, line };
      continue;
    }
    if (sections.some((x) => x.noun === key)) return undefined;
    const section: BlockSection = { noun: key as StateNoun, line, batches: [] };
    sections.push(section);
    // `keys: []` holds no record; `keys:` takes the dashes that follow
    if (!/\[\]/.test(m[2] ?? '')) cur = section;
  }
  close(text.length);
  return { version, sections };
}

/**
 * readStateFile for a block-style file (blockSections): each batch of records parsed alone,
 * so the yaml package's document tree (tens of times the text's size) exists for about
 * BATCH_CHARS at a time, never for the whole file; lines are counted from each batch's
 * first. Undefined when the file is not in that style, or a batch is not YAML on its own (an
 * alias to another batch, a syntax error): the caller then reads the whole document, which
 * reports any problem with its line.
 */
function readBlockStyle(
  yaml: Yaml,
  Value: TypeBoxValue,
  text: string,
  source: string,
  base: string,
): { out: DesiredState; problems: Problems } | undefined {
  const cut = blockSections(text);
  if (!cut) return undefined;
  const problems = new Problems();
  const out: DesiredState = { source };
  const version: unknown = cut.version ? (yaml.parse(cut.version.text) as { version?: unknown } | null)?.version : undefined;
  if (version !== STATE_VERSION)
    problems.push(
      `${source}:${cut.version?.line ?? 1}: version: expected ${STATE_VERSION}${version === undefined ? ' (missing)' : `, got ${JSON.stringify(version)}`}`,
    );
  for (const noun of STATE_NOUNS) {
    const sec = cut.sections.find((x) => x.noun === noun);
    if (!sec) continue;
    const section = newSection(Value, noun, source, base, problems);
    let i = 0;
    for (const b of sec.batches) {
      const lc = new yaml.LineCounter();
      const doc = yaml.parseDocument(text.slice(b.start, b.end), { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
      if (doc.errors.length || !yaml.isSeq(doc.contents)) return undefined;
      let items: unknown[];
      try {
        items = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown[];
      } catch {
        return undefined;
      }
      const seq = doc.contents;
      const lineOf = (offset: number | undefined) => b.line - 1 + (offset === undefined ? 1 : lc.linePos(offset).line);
      const batch = text.slice(b.start, b.end);
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
            return f && typeof f === 'object' && f.range ? batch.slice(f.range[0], f.range[1]) : undefined;
          },
        );
      });
      i += items.length;
      // the batch's document tree is garbage now: collect it before the next one is built
      collectAfterRecordData(b.end - b.start);
    }
    out[noun] = section.checked;
  }
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

/** The state file's text: read (at most MAX_STATE_BYTES) and decoded, its bytes let go on return (a 64 MiB file is not held twice). */
async function readStateText(path: string, readStdin: () => Promise<Buffer>, source: string): Promise<string> {
  let bytes: Buffer;
  try {
    if (path !== '-' && (await stat(path)).isDirectory()) throw new UsageError(`${path}: is a directory; give the state file`);
    bytes = path === '-' ? await readStdin() : await readFileBounded(path, MAX_STATE_BYTES);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`-f ${path}: ${describeFsError(e)}`);
  }
  if (bytes.length > MAX_STATE_BYTES) {
    throw new UsageError(
      `${source}: more than the limit of ${MAX_STATE_BYTES} bytes (64 MiB) for a state file; keep resource data in files (lic state export --data-dir DIR)`,
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${source}: not UTF-8 text`);
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
  if (noun === 'keys') {
    const exp = v.expireDate as string | null | undefined;
    let expireDate: string | null = null;
    if (typeof exp === 'string') {
      const ms = parseRfc3339(exp, { dateTimeOnly: true });
      if (ms === undefined) problems.push(`${at('expireDate')}: expected an RFC 3339 time such as 2027-01-31T00:00:00Z, or null for never`);
      else expireDate = new Date(ms).toISOString();
    }
    return {
      name: str('name'),
      ownerId: str('ownerId'),
      permissions: v.permissions as number,
      description: str('description'),
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
    const data: DataRef = typeof v.dataFile === 'string' ? { file: resolve(base, v.dataFile) } : { base64: str('data') };
    return {
      code: str('code'),
      name: str('name'),
      type: str('type'),
      description: str('description'),
      source: str('source'),
      dataFormat: str('dataFormat'),
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
    name: str('name'),
    version,
    culture: culture.toLowerCase() === 'neutral' ? '' : culture,
    publicKeyToken: token.toLowerCase(),
    mappingFile: str('mappingFile'),
    debugSymbolsKey: str('debugSymbolsKey'),
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
