/**
 * What a state file can name (docs/state.md "What a state file can name"), on records lic's
 * own commands make: a key made without --name is left out of `lic state export` with one
 * note and never pruned; `lic keys rotate` run twice the same day names the second key
 * `NAME-DATE-2`, so export, diff and apply go on; two keys named alike by hand make export
 * refuse in one line naming both ids and the command that tells them apart; an assembly
 * whose mapping resource has no code makes export refuse before it writes a byte.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';

const NOW = new Date('2026-11-27T09:00:00.000Z');
const { svc, env } = useService({ now: () => NOW });
const lic = (args: string[]) => runCli(args, { env, now: () => NOW });
const dir = tempDir('lic-naming-');

beforeEach(() => {
  // each test starts from the bootstrap key alone (id 1, named "bootstrap")
  svc.db.exec('DELETE FROM api_keys WHERE id <> 1; DELETE FROM assemblies; DELETE FROM resources;');
});

/** Exports to a file; returns the run and the file's path. */
async function exportTo(name: string) {
  const r = await lic(['state', 'export']);
  const file = join(dir, name);
  writeFileSync(file, r.stdout);
  return { r, file };
}

describe('a key without a name', () => {
  it('is left out of the export with one note, and diff and apply --prune leave it alone', async () => {
    const made = await lic(['keys', 'create', '--perm', 'read', '-o', 'json']);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).apiKeyId as number;

    const { r, file } = await exportTo('unnamed.yaml');
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r.stdout).keys.map((k: { name: string }) => k.name)).toEqual(['bootstrap']);
    const notes = r.stderr.split('\n').filter((l) => l.includes('without a name'));
    expect(notes).toEqual([
      `lic: left out 1 API key(s) without a name, which a state file can't name: ${id}; to manage one as code, name it (lic keys update ${id} --name NAME)`,
    ]);

    // the file lic wrote is one lic reads: no `keys[0].name: must not have fewer than 1 characters`
    const d = await lic(['diff', '-f', file, '--prune', '--exit-code']);
    expect(d.code, d.stderr).toBe(0);
    expect(d.stderr).toContain(`lic: left alone 1 API key(s) without a name`);
    const a = await lic(['apply', '-f', file, '--prune', '--yes']);
    expect(a.code, a.stderr).toBe(0);
    expect(svc.db.prepare('SELECT name FROM api_keys WHERE id = ?').get(id)).toEqual({ name: '' });
  });
});

describe("rotation, docs/commands.md's recipe twice the same day", () => {
  it('names the second new key NAME-DATE-2, so export, diff and apply go on', async () => {
    const made = await lic(['keys', 'create', '--name', 'Sales demo key', '--perm', 'rw', '-o', 'json']);
    const id = String(JSON.parse(made.stdout).apiKeyId);
    const first = await lic(['keys', 'rotate', id, '--grace', '1h', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).newKey.name).toBe('Sales demo key-2026-11-27');
    const second = await lic(['keys', 'rotate', id, '--grace', '0', '-o', 'json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).newKey.name).toBe('Sales demo key-2026-11-27-2');
    // rotating a rotated key replaces the whole suffix: no `-2026-11-27-2-2026-11-27`
    const third = await lic(['keys', 'rotate', String(JSON.parse(second.stdout).newKey.id), '--grace', '0', '-o', 'json']);
    expect(JSON.parse(third.stdout).newKey.name).toBe('Sales demo key-2026-11-27-3');

    const { r, file } = await exportTo('rotated.yaml');
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r.stdout).keys.map((k: { name: string }) => k.name)).toEqual([
      'Sales demo key',
      'Sales demo key-2026-11-27',
      'Sales demo key-2026-11-27-2',
      'Sales demo key-2026-11-27-3',
      'bootstrap',
    ]);
    expect((await lic(['diff', '-f', file, '--prune', '--exit-code'])).code).toBe(0);
    const a = await lic(['apply', '-f', file]);
    expect(a.code, a.stderr).toBe(0);
  });

  it('--dry-run shows the name the real run would give', async () => {
    const made = await lic(['keys', 'create', '--name', 'ci', '--perm', 'read', '-o', 'json']);
    const id = String(JSON.parse(made.stdout).apiKeyId);
    expect((await lic(['keys', 'rotate', id, '--grace', '0'])).code).toBe(0);
    const dry = await lic(['keys', 'rotate', id, '--grace', '0', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout.split('\n')[0]!).body.apiKey.name).toBe('ci-2026-11-27-2');
  });
});

describe('two keys named alike by hand', () => {
  it('make export refuse in one line naming both ids and the command that tells them apart; that command fixes it', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 2; i++)
      ids.push(JSON.parse((await lic(['keys', 'create', '--name', 'x', '--perm', 'read', '-o', 'json'])).stdout).apiKeyId);
    const r = await lic(['state', 'export']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `lic: the service has API keys that share a name, which a state file names them by: "x" (ids ${ids[0]}, ${ids[1]}); make them unique (lic keys update ${ids[1]} --name x-${ids[1]}) and run it again; nothing was written or sent\n`,
    );
    expect((await lic(['keys', 'update', String(ids[1]), '--name', `x-${ids[1]}`])).code).toBe(0);
    const { r: again, file } = await exportTo('renamed.yaml');
    expect(again.code, again.stderr).toBe(0);
    expect((await lic(['diff', '-f', file, '--exit-code'])).code).toBe(0);
  });
});

describe('an assembly whose mapping resource has no code', () => {
  it('makes export refuse in one line before writing anything', async () => {
    const data = join(dir, 'map.xml');
    writeFileSync(data, '<map/>');
    const res = await lic(['resources', 'create', '--name', 'map', '--type', 'MappingFile', '--data-file', data, '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    const resId = JSON.parse(res.stdout).resourceId as number;
    const asm = await lic(['assemblies', 'create', '--name', 'Folio.Pdf', '--version', '1.0.0.0', '--mapping-file-id', String(resId)]);
    expect(asm.code, asm.stderr).toBe(0);
    const r = await lic(['state', 'export']);
    expect(r.code).toBe(1);
    // `lic state export > f.yaml` must not leave half a state file behind
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`lic resources update ${resId} --code CODE`);
  });
});

describe('two assemblies whose identity differs only in the case of the culture', () => {
  it('make export refuse in one line naming both ids and the command that fixes it', async () => {
    const ids: number[] = [];
    for (const culture of ['de', 'DE']) {
      const r = await lic(['assemblies', 'create', '--name', 'Folio.Pdf', '--version', '1.0.0.0', '--culture', culture, '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      ids.push(JSON.parse(r.stdout).assemblyId);
    }
    const r = await lic(['state', 'export']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(`^lic: the service has assemblies that share .*\\(ids ${ids[0]}, ${ids[1]}\\).*lic assemblies delete ${ids[1]}.*\\n$`),
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
