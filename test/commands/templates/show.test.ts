/** `lic templates show ID --product P --release R` in-process against the real service (seed demo) on port 0. */
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { closedPort } from '../../helpers/fake-server.js';
import { http } from '../../helpers/service.js';
import { useService } from '../../helpers/fixtures.js';

interface Row {
  id: number;
  name: string;
  code: string;
  format: string;
  license_file_name: string;
  signature_keys_id: number;
  description: string;
  template: string;
}

/** the release with the most templates */
let rel: { p: number; r: number };
const rowsOf = (p: number, r: number): Row[] =>
  svc.db.prepare('SELECT * FROM license_templates WHERE product_id = ? AND release_id = ? ORDER BY id').all(p, r) as Row[];

const { svc, env } = useService({ seed: 'demo' });
beforeAll(async () => {
  rel = svc.db
    .prepare('SELECT product_id AS p, release_id AS r FROM license_templates GROUP BY release_id ORDER BY count(*) DESC LIMIT 1')
    .get() as { p: number; r: number };
});

const show = (id: number | string, ...extra: string[]) => [
  'templates',
  'show',
  String(id),
  '--product',
  String(rel.p),
  '--release',
  String(rel.r),
  ...extra,
];

describe('lic templates show ID --product P --release R', () => {
  it('prints the template body exactly as stored, nothing added', async () => {
    for (const t of rowsOf(rel.p, rel.r)) {
      const r = await runCli(show(t.id), { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(t.template);
      expect(r.stderr).toBe('');
    }
  });

  it('is byte exact for a body with CRLF, a BOM, non-ASCII text and no final newline', async () => {
    const t = rowsOf(rel.p, rel.r)[0]!;
    const body =
      '\uFEFF<?xml version="1.0" encoding="utf-8"?>\r\n<License holder="Müller Präzisionstechnik — 東京">\t{LicenseId}</License>';
    svc.db.prepare('UPDATE license_templates SET template = ? WHERE id = ?').run(body, t.id);
    try {
      const r = await runCli(show(t.id), { env });
      expect(r.code, r.stderr).toBe(0);
      expect(Buffer.from(r.stdout, 'utf8').equals(Buffer.from(body, 'utf8'))).toBe(true);
    } finally {
      svc.db.prepare('UPDATE license_templates SET template = ? WHERE id = ?').run(t.template, t.id);
    }
  });

  it('-o json prints the whole record', async () => {
    const t = rowsOf(rel.p, rel.r)[1]!;
    const r = await runCli(show(t.id, '-o', 'json'), { env });
    expect(r.code, r.stderr).toBe(0);
    const direct = await http(
      svc,
      'GET',
      `/v1/products/${rel.p}/releases/${rel.r}/license-templates?filter=${encodeURIComponent(`Id = ${t.id}`)}&take=1`,
      { key: svc.adminKey },
    );
    expect(JSON.parse(r.stdout)).toEqual(direct.body);
    expect(direct.body.licenseTemplates).toHaveLength(1);
  });

  it('an id that is not a template of that release → exit 4, nothing on stdout', async () => {
    const other = svc.db.prepare('SELECT id FROM license_templates WHERE release_id <> ? LIMIT 1').pluck().get(rel.r) as number;
    const maxId = svc.db.prepare('SELECT max(id) FROM license_templates').pluck().get() as number;
    for (const id of [other, maxId + 1]) {
      const r = await runCli(show(id), { env });
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`no license template with id ${id} in release ${rel.r} of product ${rel.p}`);
    }
  });

  it('an unknown release → exit 4 from the service', async () => {
    const maxR = svc.db.prepare('SELECT max(id) FROM releases').pluck().get() as number;
    const r = await runCli(['templates', 'show', '1', '--product', String(rel.p), '--release', String(maxR + 1)], { env });
    expect(r.code).toBe(4);
  });
});

describe('lic templates: usage errors (exit 2, nothing sent)', () => {
  let offline: Record<string, string>;
  beforeAll(async () => {
    offline = { LIC_BASE_URL: `http://127.0.0.1:${await closedPort()}`, LIC_API_KEY: 'api_000000000000000000000000' };
  });

  it.each([
    [['templates', 'show', '1', '--product', '1'], "required option '--release <id>' not specified"],
    [['templates', 'show', '--product', '1', '--release', '1'], "missing required argument 'id'"],
  ])('%j → %s', async (args, msg) => {
    const r = await runCli(args, { env: offline });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(msg);
  });

  // the list verb's --product and --release too: one id, every place it is given
  it.each(['0', '-1', '2147483648', 'abc', '1.5', '0x10'])(
    'an id %j is refused for each of --product, --release and the template id',
    async (v) => {
      for (const [args, msg] of [
        [['templates', 'list', '--product', v, '--release', '1'], `option '--product <id>' argument '${v}' is invalid`],
        [['templates', 'list', '--product', '1', '--release', v], `option '--release <id>' argument '${v}' is invalid`],
        [['templates', 'show', v, '--product', '1', '--release', '1'], `command-argument value '${v}' is invalid for argument 'id'`],
        [['templates', 'show', '1', '--product', v, '--release', '1'], `option '--product <id>' argument '${v}' is invalid`],
      ] as const) {
        const r = await runCli([...args], { env: offline });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(msg);
        expect(r.stderr).toContain('1..2147483647');
      }
    },
  );
});
