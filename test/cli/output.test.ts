// Cross-cutting: the one renderer (json, tables, piped text, colour) as every command uses it; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * The one renderer, seen from the command line (docs/architecture.md): -o json is the service's body
 * unchanged, tables on a TTY, tab-separated text when piped, color rules, and stdout
 * carrying data only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { envFor, runCli, type RunOptions } from '../helpers/cli.js';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const ANSI = /\u001b\[/;
const { svc } = useService();
beforeAll(async () => {
  // a second key and one log entry, so lists have more than one row
  await http(svc, 'POST', '/v1/api-keys', {
    key: svc.adminKey,
    body: { apiKey: { name: 'second', permissions: 1, description: 'tab\there' } },
  });
});

const lic = (args: string[], o: RunOptions = {}) => runCli(args, { ...o, env: { ...envFor(svc, svc.adminKey), ...o.env } });

describe('-o json: the body unchanged', () => {
  it.each([
    [['keys', 'list'], '/v1/api-keys'],
    [['keys', 'list', '--take', '1', '--skip', '1'], '/v1/api-keys?take=1&skip=1'],
    [['log', 'list'], '/v1/log'],
  ])('lic %j equals a raw GET %s, one line when piped', async (args, path) => {
    const r = await lic([...args, '-o', 'json']);
    const raw = await http(svc, 'GET', path, { key: svc.adminKey });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${JSON.stringify(raw.body)}\n`);
    expect(r.stdout.trimEnd()).not.toContain('\n');
    expect(r.stderr).toBe('');
  });

  it('pretty (2-space indent) on a TTY, and never colored', async () => {
    const r = await lic(['keys', 'list', '--output', 'json'], { tty: true, env: { FORCE_COLOR: '1' } });
    const raw = await http(svc, 'GET', '/v1/api-keys', { key: svc.adminKey });
    expect(r.stdout).toBe(`${JSON.stringify(raw.body, null, 2)}\n`);
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('--json is the same as -o json', async () => {
    const a = await lic(['keys', 'list', '--json']);
    const b = await lic(['-o', 'json', 'keys', 'list']);
    expect(a.stdout).toBe(b.stdout);
    expect(JSON.parse(a.stdout).apiKeys).toHaveLength(2);
  });
});

describe('table: a cli-table3 table on a TTY, tab-separated when piped', () => {
  it('piped: one line per row, tab-separated, no header, no ANSI, tabs in values become spaces', async () => {
    const r = await lic(['keys', 'list'], { env: { FORCE_COLOR: '1' } });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.split('\t').length === 9)).toBe(true);
    expect(lines[1]).toMatch(/^2\tsecond\tadmin\t1 r--\tapi_[a-z0-9]{4}\t\S+Z\t\tactive\ttab here$/);
    expect(r.stdout).not.toContain('NAME');
    expect(r.stdout).not.toMatch(ANSI);
  });

  it('on a TTY: aligned columns under a header row (no box; see table.test.ts)', async () => {
    const r = await lic(['keys', 'list'], { tty: true, env: { NO_COLOR: '1' } });
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID {2}NAME +OWNER +PERM +PREFIX +CREATED +EXPIRES +STATE +DESCRIPTION$/);
    expect(lines[1]).toMatch(/^ 1 {2}bootstrap +admin +7 rwd +api_\w{4} +\d{4}-\d{2}-\d{2} \d{2}:\d{2} +active +made on first start/);
    expect(lines).toHaveLength(3);
  });

  it('a record (keys create) is `field  value` lines on a TTY and `field\\tvalue` piped', async () => {
    const tty = await lic(['keys', 'create', '--perm', '1'], { tty: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).toMatch(/^id {3}\d+\nkey {2}api_[a-z0-9]{24}\n$/);
    const piped = await lic(['keys', 'create', '--perm', '1']);
    expect(piped.stdout).toMatch(/^id\t\d+\nkey\tapi_[a-z0-9]{24}\n$/);
  });
});

describe('color: only on a TTY, and NO_COLOR / FORCE_COLOR / --no-color honoured', () => {
  it.each([
    ['a TTY', [], {}, true],
    ['NO_COLOR=1', [], { NO_COLOR: '1' }, false],
    ['NO_COLOR empty (ignored, per no-color.org)', [], { NO_COLOR: '' }, true],
    ['--no-color', ['--no-color'], {}, false],
    ['--no-color beats FORCE_COLOR', ['--no-color'], { FORCE_COLOR: '1' }, false],
    ['NO_COLOR beats FORCE_COLOR=1 (no-color.org)', [], { FORCE_COLOR: '1', NO_COLOR: '1' }, false],
    ['NO_COLOR beats CLICOLOR_FORCE=1', [], { CLICOLOR_FORCE: '1', NO_COLOR: '1' }, false],
    ['CLICOLOR_FORCE=1 on TERM=dumb', [], { CLICOLOR_FORCE: '1', TERM: 'dumb' }, true],
    ['FORCE_COLOR=0', [], { FORCE_COLOR: '0' }, false],
    ['TERM=dumb', [], { TERM: 'dumb' }, false],
  ])('on %s: color %s', async (_what, flags, env, colored) => {
    const r = await lic([...flags, 'keys', 'list'], { tty: true, env });
    expect(r.code).toBe(0);
    if (colored) expect(r.stdout).toContain('\u001b[1mID\u001b[22m');
    else expect(r.stdout).not.toMatch(ANSI);
    expect(r.stdout).toContain('bootstrap');
  });

  it('a revoked key is red in a colored table', async () => {
    // an insert takes no `revoked` (a key is born usable): revoke it after
    const made = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { name: 'gone', permissions: 1 } } });
    await http(svc, 'PUT', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { id: made.body.apiKeyId, revoked: true } } });
    const r = await lic(['keys', 'list'], { tty: true });
    expect(r.stdout).toContain('\u001b[31mrevoked\u001b[39m');
    await http(svc, 'DELETE', `/v1/api-keys/${made.body.apiKeyId}`, { key: svc.adminKey });
  });

  it('piped, FORCE_COLOR=1 or CLICOLOR_FORCE=1 colors the tab-separated lines by tone (no header added); NO_COLOR wins', async () => {
    // an insert takes no `revoked` (a key is born usable): revoke it after
    const made = await http(svc, 'POST', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { name: 'gone-piped', permissions: 1 } } });
    await http(svc, 'PUT', '/v1/api-keys', { key: svc.adminKey, body: { apiKey: { id: made.body.apiKeyId, revoked: true } } });
    const plain = await lic(['keys', 'list']);
    expect(plain.stdout).not.toMatch(ANSI);
    for (const env of [{ FORCE_COLOR: '1' }, { FORCE_COLOR: '3' }, { CLICOLOR_FORCE: '1' }]) {
      const r = await lic(['keys', 'list'], { env });
      expect(r.code).toBe(0);
      const row = r.stdout.split('\n').find((l) => l.startsWith(`${made.body.apiKeyId}\t`));
      expect(row, JSON.stringify(env)).toContain('\u001b[31mrevoked\u001b[39m');
      // same lines as uncolored, once the color is stripped
      expect(r.stdout.replace(/\u001b\[\d+m/g, '')).toBe(plain.stdout);
    }
    for (const env of [
      { FORCE_COLOR: '1', NO_COLOR: '1' },
      { CLICOLOR_FORCE: '1', NO_COLOR: 'x' },
      { FORCE_COLOR: '0', CLICOLOR_FORCE: '1' },
    ]) {
      expect((await lic(['keys', 'list'], { env })).stdout, JSON.stringify(env)).not.toMatch(ANSI);
    }
    expect((await lic(['--no-color', 'keys', 'list'], { env: { FORCE_COLOR: '1' } })).stdout).not.toMatch(ANSI);
    // streamed lists (--all) take the same path
    const all = await lic(['keys', 'list', '--all'], { env: { CLICOLOR_FORCE: '1' } });
    expect(all.stdout).toContain('\u001b[31mrevoked\u001b[39m');
    await http(svc, 'DELETE', `/v1/api-keys/${made.body.apiKeyId}`, { key: svc.adminKey });
  });
});

describe('stdout carries data only', () => {
  it('success notes go to stderr on a terminal only (or with -v); --quiet silences them, not the data or the warnings', async () => {
    const created = await lic(['keys', 'create', '--perm', '1', '-o', 'json']);
    const { apiKeyId } = JSON.parse(created.stdout);
    expect(created.stderr).toBe('Store this API key now: it will not be shown again.\n');
    const upd = await lic(['keys', 'update', String(apiKeyId), '--name', 'x'], { stderrTTY: true });
    expect(upd.stdout).toBe('');
    expect(upd.stderr).toBe(`Updated API key ${apiKeyId}.\n`);
    // off a terminal a command that worked says nothing; -v brings the note back
    const piped = await lic(['keys', 'update', String(apiKeyId), '--name', 'y']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    const verbose = await lic(['-v', 'keys', 'update', String(apiKeyId), '--name', 'z']);
    expect(verbose.stderr).toContain(`Updated API key ${apiKeyId}.\n`);
    const quiet = await lic(['-q', 'keys', 'delete', String(apiKeyId), '--yes'], { stderrTTY: true });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr).toBe('');
    const qc = await lic(['keys', 'create', '--perm', '1', '--quiet']);
    expect(qc.stdout).toMatch(/^id\t\d+\nkey\tapi_/);
    expect(qc.stderr).toBe('Store this API key now: it will not be shown again.\n');
  });

  it('errors go to stderr only', async () => {
    const r = await lic(['keys', 'delete', '424242', '--yes', '-o', 'json']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('lic: no API key with id 424242 (HTTP 404, code 5, DELETE /v1/api-keys/424242)\n');
  });

  it('--help goes to stdout with exit 0; a usage error is one line on stderr', async () => {
    const help = await lic(['keys', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: lic keys create [options]');
    expect(help.stdout).toContain('--perm <perm>');
    expect(help.stderr).toBe('');
    const bad = await lic(['keys', 'create', '--perm', '9']);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^lic: option '--perm <perm>' argument '9' is invalid[^\n]*\n$/);
  });
});
