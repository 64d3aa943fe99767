/**
 * `lic state export` of a real service seeded with the demo dataset: every record by its
 * identity, resources' data in --data-dir files (0600), never a secret; two keys of one name
 * refused naming both; the JSON export with inline data matches its own service (`lic diff`).
 * What a state file can name (keys without a name, rotations, look-alikes) is
 * export.naming.test.ts; random command sequences round-tripping through export, diff and
 * apply, export.roundtrip.model.test.ts.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';
import { keysOf } from './two-services.js';

const { svc: src } = useService({ seed: 'demo' });
const dir = tempDir('lic-state-');
const file = join(dir, 'licensing.yaml');
const fromSrc = (args: string[]) => runCli(args, { env: envFor(src, src.adminKey) });

describe('export, apply to a second service, diff', () => {
  it('exports every record by its identity and never a secret', async () => {
    const r = await fromSrc(['state', 'export', '--data-dir', join(dir, 'data')]);
    expect(r.code, r.stderr).toBe(0);
    writeFileSync(file, r.stdout);
    const doc = parse(r.stdout);
    expect(doc.version).toBe(1);
    expect(doc.keys.map((k: { name: string }) => k.name)).toEqual(
      keysOf(src)
        .map((k) => k.name)
        .sort(),
    );
    expect(doc.resources).toHaveLength(4);
    const mapping = doc.assemblies.find((a: { name: string }) => a.name === 'ShroudIL.Engine');
    expect(mapping.mappingFile).toBe('map-shroudil-engine-4.2.0');
    for (const res of doc.resources) {
      expect(res.dataFile).toMatch(/data\//);
      expect(statSync(res.dataFile).mode & 0o777).toBe(0o600);
    }
    expect(r.stdout).not.toMatch(/password|keyPrefix|api_[a-z0-9]{24}/);
    for (const k of src.issuedKeys) expect(r.stdout).not.toContain(k.key);
  });
});

describe('validation first', () => {
  it('a --data-dir that is a file is exit 2 naming it, with nothing on stdout', async () => {
    const notDir = join(dir, 'a-file');
    writeFileSync(notDir, 'x');
    const r = await fromSrc(['state', 'export', '--data-dir', notDir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`lic: --data-dir ${notDir}: is there and is not a directory\n`);
    expect(r.stdout).toBe('');
  });

  it('two keys of one name on the service are exit 1 naming both', async () => {
    const { id } = keysOf(src).find((k) => k.name === 'Sales demo key')!;
    const other = keysOf(src).find((k) => k.name === 'Customer demo key')!.id;
    src.db.prepare('UPDATE api_keys SET name = ? WHERE id = ?').run('Sales demo key', other);
    try {
      const r = await fromSrc(['state', 'export', '--nouns', 'keys']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`"Sales demo key" (ids ${Math.min(id, other)}, ${Math.max(id, other)})`);
      expect(r.stdout).toBe('');
    } finally {
      src.db.prepare('UPDATE api_keys SET name = ? WHERE id = ?').run('Customer demo key', other);
    }
  });
});

describe('round trip in JSON with inline data', () => {
  it('a service matches its own export', async () => {
    const r = await fromSrc(['state', 'export', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.resources[0].data).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const p = join(dir, 'inline.json');
    writeFileSync(p, r.stdout);
    const d = await fromSrc(['diff', '-f', p, '--prune', '--exit-code']);
    expect(d.code, d.stdout + d.stderr).toBe(0);
  });
});
