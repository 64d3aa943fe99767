/**
 * Model-based round trip of configuration as code (docs/state.md "What a state file can
 * name"): random sequences of real lic commands — keys create/update/rotate/revoke/delete,
 * resources create/update/delete/import, assemblies create/update/import/delete — run
 * in-process through main() (the argv a user would type) against a real `lic serve`; then
 * `lic state export`. Either export refuses in one `lic:` line naming the records (their
 * ids) and the command that fixes them, or:
 *   - `lic diff -f` of the file against the same service finds nothing (with --prune too:
 *     what the file leaves out is never pruned);
 *   - `lic apply -f` to a second service with the same users succeeds, after which `lic diff
 *     --prune --exit-code` there is 0, its records (read from SQLite, not through lic) are
 *     those of the first that a file can name, and a second apply sends no write (a
 *     recording proxy).
 * Both services are reused: between sequences their records are deleted straight in SQLite
 * (the bootstrap key and the users stay). A failure shrinks (fast-check) and is reported as
 * the lic command lines that made it. LIC_ROUNDTRIP_RUNS sets the number of sequences
 * (default 200), LIC_ROUNDTRIP_SEED a seed to replay, LIC_ROUNDTRIP_STATS=1 prints how
 * often each command ran and how it ended (to see what the generators reach).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir, type RunResult } from '../../helpers/cli.js';
import { buildAssembly, ECMA_KEY, MODULE_ROW } from '../../helpers/dotnet-assembly.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const NUM_RUNS = Number(process.env.LIC_ROUNDTRIP_RUNS ?? 200);
const SEED = process.env.LIC_ROUNDTRIP_SEED ? Number(process.env.LIC_ROUNDTRIP_SEED) : undefined;

let src: TestService;
let dst: TestService;
let proxy: RecordingProxy;
const dir = tempDir('lic-roundtrip-');

/** The users both services have (users are not part of the API): the bootstrap `admin` and one more owner. */
function addUsers(svc: TestService): void {
  svc.db
    .prepare("INSERT INTO users (id, name, email, role, created_at) VALUES ('alice', 'Alice', '', 'LicenseManager', ?)")
    .run(Date.now());
}

/** Deletes every record a sequence may have made (the bootstrap key, the one lic runs with, stays); ids start again at 2 / 1. */
function reset(svc: TestService): void {
  svc.db.exec(`DELETE FROM api_keys WHERE id <> 1; DELETE FROM resources; DELETE FROM assemblies;
    UPDATE sqlite_sequence SET seq = CASE name WHEN 'api_keys' THEN 1 ELSE 0 END WHERE name IN ('api_keys', 'resources', 'assemblies');`);
}

beforeAll(async () => {
  [src, dst] = await Promise.all([startTestService(), startTestService()]);
  addUsers(src);
  addUsers(dst);
  proxy = await startRecordingProxy(dst.url);
});
afterAll(async () => {
  await proxy.close();
  await Promise.all([src.close(), dst.close()]);
});

// ---- the commands -------------------------------------------------------------------------

/** Small pools, so that sequences meet the same names, codes and identities often. */
/** Names YAML could read as something else (a date, null, a number, a comment) are in the pools too. */
const KEY_NAMES = ['ci', 'Sales demo key', 'ci-2026-01-05', '', '2026-11-27', 'null', "# it's"];
const PERMS = ['read', '7', 'rw', 'read,write,delete', '0', 'delete'];
const EXPIRES = [
  ['--expires', '90d'],
  ['--expires', '2031-05-01'],
  ['--expires', '2031-05-01T10:20:30.123Z'],
  ['--expires', '2020-01-01', '--force'],
];
const RES_NAMES = ['r1', 'r2', 'Welcome e-mail'];
const CODES = ['email-welcome', 'map-1', '', '007'];
const ASM_NAMES = ['Folio.Pdf', 'ShroudIL.Engine'];
const VERSIONS = ['1.0.0.0', '4.2.0.0'];

/** A command of the model: its argv with `{key}`, `{res}`, `{asm}` placeholders resolved when run (index into the records there are then), and files it needs. */
interface Cmd {
  argv: string[];
  /** which collection `ref` indexes, when the argv names a record */
  ref?: { kind: 'key' | 'res' | 'asm'; index: number };
  /** a second reference (an assembly's mapping resource) */
  mapping?: number;
  /** a file to write first, named `{file}` in argv */
  file?: { bytes: Uint8Array; ext: string };
}

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const flag = (name: string, arb: fc.Arbitrary<string>) => opt(arb).map((v) => (v === undefined ? [] : [name, v]));
const idx = fc.nat(7);
const bytes = fc.uint8Array({ minLength: 0, maxLength: 24 });

const keysCreate = fc
  .record({
    name: flag('--name', fc.constantFrom(...KEY_NAMES)),
    perm: fc.constantFrom(...PERMS),
    owner: flag('--owner', fc.constantFrom('admin', 'alice')),
    expires: opt(fc.constantFrom(...EXPIRES)),
    description: flag('--description', fc.constantFrom('CI pipeline', '', 'yes', 'a: b')),
  })
  .map((o): Cmd => ({ argv: ['keys', 'create', ...o.name, '--perm', o.perm, ...o.owner, ...(o.expires ?? []), ...o.description] }));

const keysUpdate = fc
  .record({
    index: idx,
    name: flag('--name', fc.constantFrom(...KEY_NAMES)),
    perm: flag('--perm', fc.constantFrom(...PERMS)),
    expires: opt(fc.constantFrom(...EXPIRES, ['--expires', 'never'])),
    revoke: fc.constantFrom([], ['--revoke'], ['--unrevoke']),
    description: flag('--description', fc.constantFrom('changed', '')),
  })
  .map((o): Cmd => {
    const flags = [...o.name, ...o.perm, ...(o.expires ?? []), ...o.revoke, ...o.description];
    // `keys update ID` with no flag is a usage error: change the description then
    return {
      argv: ['keys', 'update', '{key}', ...(flags.length ? flags : ['--description', 'changed'])],
      ref: { kind: 'key', index: o.index },
    };
  });

const keysRotate = fc
  .record({ index: idx, grace: fc.constantFrom('0', '1h', '7d'), expires: fc.constantFrom([], ['--expires', '90d']) })
  .map((o): Cmd => ({ argv: ['keys', 'rotate', '{key}', '--grace', o.grace, ...o.expires], ref: { kind: 'key', index: o.index } }));

const keysRevoke = idx.map((index): Cmd => ({ argv: ['keys', 'update', '{key}', '--revoke'], ref: { kind: 'key', index } }));
const keysDelete = idx.map((index): Cmd => ({ argv: ['keys', 'delete', '{key}', '--yes'], ref: { kind: 'key', index } }));

const resType = fc.constantFrom('email', 'RSA', 'MappingFile', 'other');
const resFields = {
  type: flag('--type', resType),
  format: flag('--format', fc.constantFrom('html', 'SNK', 'xml', '')),
  description: flag('--description', fc.constantFrom('Sent when a license is issued.', '')),
  source: flag('--source', fc.constantFrom('build 12', '')),
};

const resCreate = fc
  .record({
    name: fc.constantFrom(...RES_NAMES),
    code: flag('--code', fc.constantFrom(...CODES)),
    data: bytes,
    ...resFields,
    type: resType.map((t) => ['--type', t]),
  })
  .map((o): Cmd => ({
    argv: [
      'resources',
      'create',
      '--name',
      o.name,
      ...o.code,
      ...o.type,
      ...o.format,
      ...o.description,
      ...o.source,
      '--data-file',
      '{file}',
    ],
    file: { bytes: o.data, ext: 'bin' },
  }))
  .map((c) => (c.file!.bytes.length ? c : { ...c, argv: [...c.argv, '--allow-empty'] }));

const resUpdate = fc
  .record({
    index: idx,
    name: flag('--name', fc.constantFrom(...RES_NAMES)),
    code: flag('--code', fc.constantFrom(...CODES)),
    data: opt(bytes),
    ...resFields,
  })
  .map((o): Cmd => ({
    argv: [
      'resources',
      'update',
      '{res}',
      ...o.name,
      ...o.code,
      ...o.type,
      ...o.format,
      ...o.description,
      ...o.source,
      ...(o.data ? ['--data-file', '{file}', ...(o.data.length ? [] : ['--allow-empty'])] : []),
    ],
    ref: { kind: 'res', index: o.index },
    file: o.data && { bytes: o.data, ext: 'bin' },
  }));

const resDelete = idx.map((index): Cmd => ({ argv: ['resources', 'delete', '{res}', '--yes'], ref: { kind: 'res', index } }));

const bundleLine = fc.record({
  name: fc.constantFrom(...RES_NAMES),
  type: fc.constantFrom('email', 'MappingFile'),
  code: fc.constantFrom(...CODES.filter((c) => c !== '')),
  description: fc.constantFrom('', 'imported'),
  source: fc.constant(''),
  dataFormat: fc.constantFrom('html', 'xml'),
  data: bytes.map((b) => Buffer.from(b).toString('base64')),
});
const resImport = fc.uniqueArray(bundleLine, { minLength: 1, maxLength: 2, selector: (l) => l.code }).map((lines): Cmd => ({
  argv: ['resources', 'import', '{file}'],
  file: { bytes: Buffer.from(lines.map((l) => JSON.stringify(l) + '\n').join('')), ext: 'ndjson' },
}));

const asmCreate = fc
  .record({
    name: fc.constantFrom(...ASM_NAMES),
    version: fc.constantFrom(...VERSIONS),
    culture: flag('--culture', fc.constantFrom('neutral', 'de', 'DE', 'Neutral')),
    token: flag('--public-key-token', fc.constantFrom('null', '0bbe75556158122f', '0BBE75556158122F')),
    mapping: opt(fc.oneof(fc.constant(-1), idx)),
    debug: flag('--debug-symbols-key', fc.constantFrom('abc123', '', '1e3')),
  })
  .map((o): Cmd => ({
    argv: [
      'assemblies',
      'create',
      '--name',
      o.name,
      '--version',
      o.version,
      ...o.culture,
      ...o.token,
      ...(o.mapping === undefined ? [] : ['--mapping-file-id', o.mapping < 0 ? '0' : '{map}']),
      ...o.debug,
    ],
    mapping: o.mapping !== undefined && o.mapping >= 0 ? o.mapping : undefined,
  }));

const asmUpdate = fc
  .record({ index: idx, mapping: opt(fc.oneof(fc.constant(-1), idx)), debug: flag('--debug-symbols-key', fc.constantFrom('k2', '')) })
  .map((o): Cmd => ({
    argv: [
      'assemblies',
      'update',
      '{asm}',
      ...(o.mapping === undefined ? [] : ['--mapping-file-id', o.mapping < 0 ? '0' : '{map}']),
      ...o.debug,
      ...(o.mapping === undefined && o.debug.length === 0 ? ['--debug-symbols-key', 'k3'] : []),
    ],
    ref: { kind: 'asm', index: o.index },
    mapping: o.mapping !== undefined && o.mapping >= 0 ? o.mapping : undefined,
  }));

const asmImport = fc
  .record({
    name: fc.constantFrom(...ASM_NAMES),
    version: fc.constantFrom<[number, number, number, number][]>([1, 0, 0, 0], [4, 2, 0, 0]),
    signed: fc.boolean(),
    culture: fc.constantFrom('', 'de', 'DE'),
  })
  .map((o): Cmd => ({
    argv: ['assemblies', 'import', '{file}'],
    file: {
      bytes: buildAssembly({
        name: o.name,
        version: o.version,
        publicKey: o.signed ? ECMA_KEY : undefined,
        culture: o.culture,
        tables: { before: { 0: MODULE_ROW } },
      }),
      ext: 'dll',
    },
  }));

const asmDelete = idx.map((index): Cmd => ({ argv: ['assemblies', 'delete', '{asm}', '--yes'], ref: { kind: 'asm', index } }));

const command = fc.oneof(
  { arbitrary: keysCreate, weight: 4 },
  { arbitrary: keysUpdate, weight: 2 },
  { arbitrary: keysRotate, weight: 3 },
  { arbitrary: keysRevoke, weight: 1 },
  { arbitrary: keysDelete, weight: 1 },
  { arbitrary: resCreate, weight: 3 },
  { arbitrary: resUpdate, weight: 2 },
  { arbitrary: resDelete, weight: 1 },
  { arbitrary: resImport, weight: 1 },
  { arbitrary: asmCreate, weight: 3 },
  { arbitrary: asmUpdate, weight: 1 },
  { arbitrary: asmImport, weight: 2 },
  { arbitrary: asmDelete, weight: 1 },
);

// ---- running them -------------------------------------------------------------------------

/** An argument as a POSIX shell would need it quoted. */
const shellWord = (s: string) => (/^[A-Za-z0-9_./:,=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const line = (argv: string[]) => ['lic', ...argv].map(shellWord).join(' ');

/** The ids of the records a `{key}`/`{res}`/`{asm}` reference picks from (never the key lic runs with, id 1). */
function ids(svc: TestService, kind: 'key' | 'res' | 'asm'): number[] {
  const sql = {
    key: 'SELECT id FROM api_keys WHERE id <> 1 ORDER BY id',
    res: 'SELECT id FROM resources ORDER BY id',
    asm: 'SELECT id FROM assemblies ORDER BY id',
  }[kind];
  return (svc.db.prepare(sql).all() as { id: number }[]).map((r) => r.id);
}

let fileNo = 0;
/** Sequences run so far: each applies into a key directory of its own. */
let sequences = 0;
const stats: string[] = [];
/** The argv of `cmd` with its references resolved against `svc` now; undefined when it names a record and there is none. */
function resolveArgv(cmd: Cmd, svc: TestService): string[] | undefined {
  const pick = (kind: 'key' | 'res' | 'asm', index: number) => {
    const all = ids(svc, kind);
    return all.length ? String(all[index % all.length]) : undefined;
  };
  const ref = cmd.ref && pick(cmd.ref.kind, cmd.ref.index);
  if (cmd.ref && ref === undefined) return undefined;
  const map = cmd.mapping === undefined ? undefined : pick('res', cmd.mapping);
  if (cmd.mapping !== undefined && map === undefined) return undefined;
  let file: string | undefined;
  if (cmd.file) {
    file = join(dir, `f${++fileNo}.${cmd.file.ext}`);
    writeFileSync(file, cmd.file.bytes);
  }
  return cmd.argv.map((a) => (a === '{key}' || a === '{res}' || a === '{asm}' ? ref! : a === '{map}' ? map! : a === '{file}' ? file! : a));
}

// one profile and data folder for every run (the environment names the service and key; nothing is written there)
const home = { configDir: tempDir('lic-roundtrip-config-'), dataDir: tempDir('lic-roundtrip-data-') };
const onSrc = (argv: string[]) => runCli(argv, { ...home, env: envFor(src, src.adminKey) });
const onDst = (argv: string[]) => runCli(argv, { ...home, env: envFor(proxy, dst.adminKey) });

/**
 * What a state file can carry of a service, read straight from its database (an oracle that
 * does not go through lic): the named keys, the resources with a code (data as hex), and
 * every assembly with its mapping resource's code ("" for none or a deleted one), culture
 * and token in lower case (they match in any case). After an apply, the second service's
 * must equal the first's: nothing lost, nothing made up.
 */
function content(svc: TestService): string {
  const all = (sql: string) => svc.db.prepare(sql).all();
  return JSON.stringify({
    keys: all(`SELECT name, owner_id AS ownerId, permissions, description, expire_date AS expireDate, revoked
                 FROM api_keys WHERE name <> '' ORDER BY name`),
    resources: all(`SELECT code, name, type, description, source, data_format AS dataFormat, hex(data) AS data
                      FROM resources WHERE code <> '' ORDER BY code`),
    assemblies: all(`SELECT a.name, a.version, lower(a.culture) AS culture, lower(a.public_key_token) AS token,
                         a.debug_symbols_key AS debugSymbolsKey, coalesce(r.code, '') AS mappingFile
                       FROM assemblies a LEFT JOIN resources r ON r.id = a.mapping_file_id ORDER BY 1, 2, 3, 4`),
  });
}

/** What a failed check reports: the sequence as command lines, then what went wrong. */
class RoundTripFailure extends Error {}
function fail(log: string[], what: string, r: RunResult): never {
  throw new RoundTripFailure(
    `${what}\n  after:\n    ${log.join('\n    ') || '(no command)'}\n  exit ${r.code}\n  stdout: ${r.stdout.slice(0, 2000)}\n  stderr: ${r.stderr.slice(0, 2000)}`,
  );
}

/**
 * Runs `cmds` on the first service, then checks the round trip (see the file's comment).
 * Returns the sequence's log and whether export refused (and why).
 */
async function roundTrip(cmds: Cmd[]): Promise<{ refused?: string }> {
  reset(src);
  reset(dst);
  const log: string[] = [];
  for (const cmd of cmds) {
    const argv = resolveArgv(cmd, src);
    if (!argv) continue;
    const r = await onSrc(argv);
    log.push(line(argv) + (r.code ? `   # exit ${r.code}` : ''));
    if (process.env.LIC_ROUNDTRIP_STATS)
      stats.push(`${argv.slice(0, 2).join(' ')} exit ${r.code} ${r.code ? r.stderr.replace(/\n/g, ' ').slice(0, 140) : ''}`);
    // a command may be refused (a name taken, an expiry in the past...), but never crash or talk in a stack trace
    if (r.code !== 0 && !/^(lic|error): /m.test(r.stderr)) fail(log, 'a command failed without a `lic:` line', r);
  }
  log.push('lic state export > state.yaml');
  const exp = await onSrc(['state', 'export']);
  if (exp.code !== 0) {
    const msg = exp.stderr.trim();
    // a refusal: exit 1, one line, naming the ids of the records and the lic command that fixes them
    if (exp.code !== 1 || msg.includes('\n') || !/^lic: .*\b\d+\b/.test(msg) || !/`?lic [a-z]+ [a-z]+ \d+/.test(msg))
      fail(log, 'state export failed, and not with one line naming the records and the fix', exp);
    if (exp.stdout !== '') fail(log, 'state export refused but wrote to stdout', exp);
    // keys rotate never makes a name another key has: two keys of one name need a --name given by hand
    if (/API keys that share a name/.test(msg) && !log.some((l) => /^lic keys (create|update) .*--name /.test(l)))
      fail(log, 'keys of one name without a --name given by hand', exp);
    if (process.env.LIC_ROUNDTRIP_STATS) stats.push(`REFUSED ${msg.slice(0, 60)}`);
    return { refused: msg };
  }
  const file = join(dir, 'state.yaml');
  writeFileSync(file, exp.stdout);
  log.push('lic diff -f state.yaml --prune --exit-code');
  const same = await onSrc(['diff', '-f', file, '--prune', '--exit-code']);
  if (same.code !== 0) fail(log, 'diff of the exported file against its own service is not empty', same);

  log.push('LIC_BASE_URL=<second service> lic apply -f state.yaml --key-dir keys-N');
  // a key directory of its own per sequence: apply never overwrites a key file (--key-dir is O_EXCL)
  const keyDir = join(dir, `keys-${++sequences}`);
  const applied = await onDst(['apply', '-f', file, '--key-dir', keyDir]);
  if (applied.code !== 0) fail(log, 'apply to the second service failed', applied);
  log.push('LIC_BASE_URL=<second service> lic diff -f state.yaml --prune --exit-code');
  const after = await onDst(['diff', '-f', file, '--prune', '--exit-code']);
  if (after.code !== 0) fail(log, 'the second service does not match the file after apply', after);
  const want = content(src);
  const got = content(dst);
  if (got !== want) fail(log, `the second service holds other records than the first:\n  first:  ${want}\n  second: ${got}`, applied);
  const from = proxy.seen.length;
  log.push('LIC_BASE_URL=<second service> lic apply -f state.yaml');
  const again = await onDst(['apply', '-f', file]);
  const writes = proxy.seen.slice(from).filter((l) => !l.startsWith('GET '));
  if (again.code !== 0 || writes.length) fail(log, `a second apply sent ${writes.length} write(s): ${writes.join(', ')}`, again);
  return {};
}

describe('every state the CLI can make round-trips through state export, diff and apply', () => {
  it(`${NUM_RUNS} random sequences of lic commands`, { timeout: 600_000 }, async () => {
    let refused = 0;
    let exported = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 2, maxLength: 12, size: 'medium' }), async (cmds) => {
        const r = await roundTrip(cmds);
        if (r.refused) refused++;
        else exported++;
      }),
      { numRuns: NUM_RUNS, seed: SEED, endOnFailure: false },
    );
    // the property must have exercised both outcomes, else it proves little
    expect(exported).toBeGreaterThan(NUM_RUNS / 2);
    if (process.env.LIC_ROUNDTRIP_STATS) {
      const n = new Map<string, number>();
      for (const st of stats) n.set(st, (n.get(st) ?? 0) + 1);
      console.log(
        [...n]
          .sort()
          .map(([k, v]) => `${v}\t${k}`)
          .join('\n'),
      );
    }
    console.log(`round trip: ${exported} sequences exported and converged, ${refused} refused by export`);
  });
});
