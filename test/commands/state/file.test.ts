// Reading a state file, shared by `lic diff`, `lic apply` (and what `lic state export` writes): one file, since the same reader and checks serve every verb.
/**
 * A state file is read and checked whole before anything is sent: an unknown field, a value
 * outside the schema, a record twice, a password, a missing version, each named by file and
 * line (exit 2); a value YAML reads as a number gets a quote-it hint that then passes
 * (docs/state.md, "Validation first"); files of a hostile shape (issue 33): an alias bomb,
 * thousands of bad records, a block-style file read in batches.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/fake-server.js';
import { useService } from '../../helpers/fixtures.js';
import { startRecordingProxy, type RecordingProxy } from '../../helpers/recording-proxy.js';

const { svc } = useService();
/** Through a recording proxy in front of the service, to see that nothing was sent. */
let proxy: RecordingProxy;
beforeAll(async () => {
  proxy = await startRecordingProxy(svc.url);
});
afterAll(async () => {
  await proxy.close();
});
const toDst = (args: string[]) => runCli(args, { env: envFor(proxy, svc.adminKey) });
const dir = tempDir('lic-state-file-');

describe('validation first', () => {
  const bad = async (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    const from = proxy.seen.length;
    const r = await toDst(['apply', '-f', p]);
    expect(r.code).toBe(2);
    expect(proxy.seen.slice(from)).toEqual([]);
    return r.stderr;
  };

  it('an unknown field is exit 2 naming the line and the field, nothing sent', async () => {
    const err = await bad('unknown.yaml', 'version: 1\nkeys:\n  - name: ci\n    ownerId: admin\n    permissions: 3\n    color: blue\n');
    expect(err).toContain('unknown.yaml:6: keys[0].color: unknown field');
  });

  it('a value outside the schema is exit 2 naming line and field', async () => {
    const err = await bad('perm.yaml', 'version: 1\nkeys:\n  - name: ci\n    ownerId: admin\n    permissions: 9\n');
    expect(err).toMatch(/perm\.yaml:5: keys\[0\]\.permissions: /);
    const time = await bad(
      'time.yaml',
      'version: 1\nkeys:\n  - name: ci\n    ownerId: admin\n    permissions: 1\n    expireDate: tomorrow\n',
    );
    expect(time).toContain('time.yaml:6: keys[0].expireDate: expected an RFC 3339 time');
  });

  it('a record twice, a password, a missing version: each named', async () => {
    const twice = await bad(
      'twice.yaml',
      'version: 1\nkeys:\n  - {name: ci, ownerId: admin, permissions: 1}\n  - {name: ci, ownerId: admin, permissions: 3}\n',
    );
    expect(twice).toContain('twice.yaml:4: keys[1]: ci is already on line 3');
    const pw = await bad('pw.yaml', 'version: 1\nresources:\n  - code: k\n    name: K\n    password: hunter2\n');
    expect(pw).toContain('pw.yaml:5: resources[0].password: a state file never carries passwords');
    expect(pw).not.toContain('hunter2');
    expect(await bad('nov.yaml', 'keys: []\n')).toContain('version: expected 1 (missing)');
  });
});

/** `lic diff -f` of a file holding one assembly with `fields` (YAML lines, as written). */
async function diff(name: string, fields: string) {
  const file = join(dir, name);
  writeFileSync(file, `version: 1\nassemblies:\n  - name: MyLib\n${fields}`);
  return runCli(['diff', '-f', file], { env: envFor(svc, svc.adminKey) });
}

/** The hint's suggestion, e.g. `'1.0.0.0'` from `(quote it: '1.0.0.0')`. */
const suggested = (stderr: string) => /\(quote it: ('[^']*')\)/.exec(stderr)?.[1];

describe('the quote-it hint of a state file', () => {
  it.each([
    ['version: 1.0', 'version', "'1.0.0.0'"],
    ['version: 2', 'version', "'2.0.0.0'"],
    ['version: 1.0.0.0\n    publicKeyToken: 0000000000000012', 'publicKeyToken', "'0000000000000012'"],
    ['version: 1.0.0.0\n    culture: 1.10', 'culture', "'1.10'"],
  ])('%s: suggests what works, as written', async (fields, field, quoted) => {
    const bad = await diff(`${field}.yaml`, `    ${fields}\n`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`assemblies[0].${field}: must be string`);
    expect(suggested(bad.stderr)).toBe(quoted);
    // the file with the suggestion applied passes validation: diff reads the service and plans a create
    const good = await diff(`${field}-quoted.yaml`, `    ${fields}\n`.replace(new RegExp(`(${field}: )(.*)`), `$1${quoted}`));
    expect(good.stderr).not.toContain('invalid state file');
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('+ create assembly "MyLib');
  });
});

/** A closed port: nothing can reach a service. */
let env: Record<string, string>;
beforeAll(async () => {
  env = { LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, LIC_API_KEY: 'api_000000000000000000000000' };
});

describe('state files of a hostile shape', () => {
  it('an alias bomb: diff --exit-code is exit 2 naming the file and the line where the aliases multiply', async () => {
    const file = join(dir, 'bomb.yaml');
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const lines = ['version: 1', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < levels.length; i++)
      lines.push(
        `${levels[i]}: &${levels[i]} [${Array(9)
          .fill(`*${levels[i - 1]}`)
          .join(',')}]`,
      );
    lines.push('keys: [*g]');
    writeFileSync(file, lines.join('\n') + '\n');
    const r = await runCli(['diff', '-f', file, '--exit-code'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `lic: invalid state file; nothing was sent:\n  ${file}:4: an alias stands for more than 100 nodes (anchors and aliases nested to multiply a document): not a state file\n`,
    );
  });

  it('5,000 bad records: ten listed, the rest counted, checking stopped at the 100th problem', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'version: 1\nkeys:\n' + '- {name: a, ownerId: b, permissions: 1, color: red}\n'.repeat(5000));
    const r = await runCli(['diff', '-f', file], { env });
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[1]).toBe(
      `  ${file}:3: keys[0].color: unknown field (fields: name, ownerId, permissions, description, expireDate, revoked)`,
    );
    expect(lines[11]).toBe('  … and 90 more (stopped checking after 100 problems)');
  });

  it('a block-style file of many records (read in batches): problems name the right line across batches', async () => {
    const file = join(dir, 'many.yaml');
    // 3,000 keys of 5 lines each (~330 KB: several batches), record 2,500 with an unknown field, record 2,900 named as record 10
    const recs: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const name = i === 2900 ? 'key-10' : `key-${i}`;
      recs.push(
        `  - name: ${name}\n    ownerId: admin\n    permissions: 1\n    description: "record ${i}, padded to fill a batch sooner"${i === 2500 ? '\n    color: red' : ''}\n`,
      );
    }
    writeFileSync(file, `# a comment\nversion: 1\nkeys:\n${recs.join('')}`);
    // record i starts on line 4 + 4 i (+1 after record 2,500, which has 5 lines)
    const lineOf = (i: number) => 4 + 4 * i + (i > 2500 ? 1 : 0);
    const r = await runCli(['diff', '-f', file], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      'lic: invalid state file; nothing was sent:\n' +
        `  ${file}:${lineOf(2500) + 4}: keys[2500].color: unknown field (fields: name, ownerId, permissions, description, expireDate, revoked)\n` +
        `  ${file}:${lineOf(2900)}: keys[2900]: key-10 is already on line ${lineOf(10)}; a state file names each record once\n`,
    );
  });
});
