// Cross-cutting: a terminal table that leaves columns out says so, for every list; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * A terminal table that leaves columns out says so, in one line on stderr naming them and
 * --wide; a key's state (active, revoked, expired) survives every width.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli } from '../helpers/cli.js';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const { svc } = useService();
beforeAll(async () => {
  const add = (apiKey: object) => http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey } });
  await add({ name: 'build-server-revoked', permissions: 3, description: 'a key for the nightly build pipeline of the site' });
  await add({ name: 'old-expired-key', permissions: 1, expireDate: '2020-01-01T00:00:00Z', description: 'kept for the audit trail' });
  await http(svc, 'PUT', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { id: 2, revoked: true } } });
});

const lic = (args: string[], cols: number) =>
  runCli(args, { tty: true, env: { ...envFor(svc, svc.adminKey), NO_COLOR: '1', COLUMNS: String(cols) } });

describe('keys list at narrow widths', () => {
  it('at 60 columns a revoked and an expired key read as such, and the columns left out are named on stderr', async () => {
    const r = await lic(['keys', 'list'], 60);
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n');
    for (const l of rows) expect(l.length).toBeLessThanOrEqual(60);
    expect(rows[0]).toMatch(/\bSTATE\b/);
    expect(rows.find((l) => l.includes('build-server'))).toMatch(/\brevoked\b/);
    expect(rows.find((l) => l.includes('old-expired'))).toMatch(/\bexpired\b/);
    expect(rows.find((l) => /^ +1 /.test(l))).toMatch(/\bactive\b/);
    // one note (wrapped to the terminal like every note)
    expect(r.stderr.replace(/\n(?=.)/g, ' ')).toMatch(/^\([A-Z, ]+ left out for the width; --wide shows every column\)\n$/);
    expect(r.stderr).toContain('DESCRIPTION');
  });

  it('nothing is said when every column fits, nor with --wide', async () => {
    expect((await lic(['keys', 'list'], 250)).stderr).toBe('');
    const wide = await lic(['keys', 'list', '--wide'], 60);
    expect(wide.stderr).toBe('');
    expect(wide.stdout.split('\n')[0]).toMatch(/DESCRIPTION$/);
  });
});

describe('--fields in a terminal table', () => {
  it('heads the columns as the default columns are: upper case, words split', async () => {
    const r = await lic(['keys', 'list', '--fields', 'id,name,ownerId'], 120);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^ID {2}NAME +OWNER_ID$/);
    // csv keeps the field names
    const csv = await runCli(['keys', 'list', '--fields', 'id,name,ownerId', '-o', 'csv'], { env: envFor(svc, svc.adminKey) });
    expect(csv.stdout.split('\n')[0]).toBe('id,name,ownerId');
  });
});

describe('a record view on a terminal', () => {
  it('wraps a long value at spaces, continuing under itself, never mid-word', async () => {
    const words = 'the nightly build signs every assembly with this key pair before the installer is made; rotate it yearly';
    const c = await runCli(
      ['resources', 'create', '-o', 'json', '--name', 'wrap-me', '--type', 'text', '--description', words, '--data-file', '-'],
      { env: envFor(svc, svc.adminKey), stdin: 'hi' },
    );
    expect(c.code, c.stderr).toBe(0);
    const id = String(JSON.parse(c.stdout).resourceId);
    const r = await lic(['resources', 'get', id], 60);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(60);
    const at = lines.findIndex((l) => l.startsWith('description'));
    const col = lines[at]!.indexOf('the nightly');
    // the continuation lines start under the value's first column, and together give the words back
    const cont: string[] = [];
    for (let i = at + 1; i < lines.length && lines[i]!.startsWith(' '.repeat(col)); i++) cont.push(lines[i]!.slice(col));
    expect(cont.length).toBeGreaterThan(0);
    expect([lines[at]!.slice(col), ...cont].join(' ')).toBe(words);
  });
});
