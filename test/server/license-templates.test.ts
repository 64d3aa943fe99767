import { beforeAll, describe, expect, it } from 'vitest';
import { Code, INT32_MAX, Permission, ROLES, type LicenseTemplate, type Role } from '../../src/wire.js';
import { addUserWithKey, http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

const TEMPLATE_FIELDS = [
  'id',
  'name',
  'code',
  'format',
  'licenseFileName',
  'generateKeyInfo',
  'description',
  'template',
  'productId',
  'signatureKeysId',
  'releaseId',
  'product',
  'components',
  'assemblies',
  'fields',
  'features',
  'restrictions',
];

interface Row {
  id: number;
  product_id: number;
  release_id: number;
  name: string;
  code: string;
  format: string;
  license_file_name: string;
  generate_key_info: number;
  description: string;
  template: string;
  signature_keys_id: number;
  components: string;
  assemblies: string;
  fields: string;
  features: string;
  restrictions: string;
  p_name: string;
  p_copyright: string;
  p_url: string;
  p_description: string;
  r_version: string;
}

/** The wire form of a stored template, written independently of the service. */
function expected(r: Row): LicenseTemplate {
  return {
    id: r.id,
    name: r.name,
    code: r.code,
    format: r.format,
    licenseFileName: r.license_file_name,
    generateKeyInfo: r.generate_key_info === 1,
    description: r.description,
    template: r.template,
    productId: r.product_id,
    signatureKeysId: r.signature_keys_id,
    releaseId: r.release_id,
    product: {
      id: String(r.product_id),
      name: r.p_name,
      version: r.r_version,
      copyright: r.p_copyright,
      url: r.p_url,
      description: r.p_description,
    },
    components: JSON.parse(r.components),
    // a stored copy with id 0 describes no assembly record: on the wire it has no id (contract §8)
    assemblies: JSON.parse(r.assemblies).map(({ id, ...a }: { id: number }) => (id > 0 ? { id, ...a } : a)),
    fields: JSON.parse(r.fields),
    // an unset expiry is null, never "" (contract §2)
    features: JSON.parse(r.features).map((f: { expireDate: string }) => ({ ...f, expireDate: f.expireDate || null })),
    restrictions: JSON.parse(r.restrictions).map((x: { expireDate: string }) => ({ ...x, expireDate: x.expireDate || null })),
  };
}

const keys = {} as Record<Role, { read: string; noRead: string }>;
/** the release with the most templates, and its product */
let rel: { product: number; release: number };
const path = (p: number | string, r: number | string, q = '') => `/v1/products/${p}/releases/${r}/license-templates${q}`;
const templates = (productId: number, releaseId: number, extra = '') =>
  (
    svc.db
      .prepare(
        `SELECT t.*, p.name AS p_name, p.copyright AS p_copyright, p.url AS p_url, p.description AS p_description, r.version AS r_version
         FROM license_templates t JOIN products p ON p.id = t.product_id JOIN releases r ON r.id = t.release_id
        WHERE t.product_id = ? AND t.release_id = ? ${extra} ORDER BY t.id`,
      )
      .all(productId, releaseId) as Row[]
  ).map(expected);

const { svc } = useService({ seed: 'demo' });
beforeAll(async () => {
  const code = svc.db.prepare('SELECT code FROM customers ORDER BY id LIMIT 1').pluck().get() as string;
  for (const role of ROLES) {
    const cc = role === 'Customer' ? code : undefined;
    keys[role] = {
      read: await addUserWithKey(svc, `lt-${role}`, role, Permission.Read, cc),
      noRead: await addUserWithKey(svc, `lt-${role}`, role, Permission.Write | Permission.Delete, cc),
    };
  }
  rel = svc.db
    .prepare(
      'SELECT product_id AS product, release_id AS release FROM license_templates GROUP BY release_id ORDER BY count(*) DESC, release_id LIMIT 1',
    )
    .get() as { product: number; release: number };
});

describe('GET /v1/products/{productId}/releases/{releaseId}/license-templates: roles and permission bits (contract §3)', () => {
  for (const role of ROLES) {
    const allowed = role === 'Administrator' || role === 'LicenseManager';
    it(`${role} with Read → ${allowed ? '200' : '403'}`, async () => {
      const r = await http(svc, 'GET', path(rel.product, rel.release), { key: keys[role].read });
      if (allowed) {
        expect(r.status).toBe(200);
        expect(r.body.licenseTemplates.length).toBeGreaterThan(0);
      } else {
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ success: false, code: Code.PERMISSION_DENIED });
        expect(r.body.licenseTemplates).toBeUndefined();
      }
    });
    it(`${role} without the Read bit → 403`, async () => {
      const r = await http(svc, 'GET', path(rel.product, rel.release), { key: keys[role].noRead });
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ success: false, code: Code.PERMISSION_DENIED });
    });
  }
});

describe('GET /v1/products/{productId}/releases/{releaseId}/license-templates: records', () => {
  it('lists the templates of that release in the full spec shape, product built from product + release', async () => {
    const r = await http(svc, 'GET', path(rel.product, rel.release), { key: svc.adminKey });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, code: 0, message: 'OK' });
    const want = templates(rel.product, rel.release);
    expect(want.length).toBeGreaterThan(1);
    expect(r.body.licenseTemplates).toEqual(want);
    expect(r.body.totalLicenseTemplatesCount).toBe(want.length);
    for (const t of r.body.licenseTemplates as LicenseTemplate[]) {
      expect(Object.keys(t).sort()).toEqual([...TEMPLATE_FIELDS].sort());
      expect(typeof t.product.id).toBe('string');
      expect(typeof t.generateKeyInfo).toBe('boolean');
      expect(Array.isArray(t.components) && Array.isArray(t.restrictions)).toBe(true);
      expect(t.template.startsWith('<?xml')).toBe(true);
    }
  });

  it('every release of every product answers with its own templates only', async () => {
    const all = svc.db.prepare('SELECT product_id AS p, id AS r FROM releases ORDER BY id').all() as { p: number; r: number }[];
    let seen = 0;
    for (const { p, r } of all) {
      const res = await http(svc, 'GET', path(p, r), { key: svc.adminKey });
      expect(res.status).toBe(200);
      expect(res.body.licenseTemplates).toEqual(templates(p, r));
      seen += res.body.totalLicenseTemplatesCount;
    }
    expect(seen).toBe(svc.db.prepare('SELECT count(*) FROM license_templates').pluck().get());
  });

  it('nested arrays keep their shape: assemblies, features with data, restrictions with properties', async () => {
    const floating = svc.db
      .prepare("SELECT product_id, release_id, id FROM license_templates WHERE restrictions LIKE '%R-FLOAT%' LIMIT 1")
      .get() as { product_id: number; release_id: number; id: number } | undefined;
    expect(floating).toBeDefined();
    const r = await http(
      svc,
      'GET',
      path(floating!.product_id, floating!.release_id, `?filter=${encodeURIComponent(`Id = ${floating!.id}`)}`),
      { key: svc.adminKey },
    );
    const t = r.body.licenseTemplates[0] as LicenseTemplate;
    expect(t.restrictions[0]!.properties).toEqual(expect.objectContaining({ seats: expect.any(String) }));
    expect(t.assemblies[0]).toEqual(
      expect.objectContaining({
        name: expect.any(String),
        version: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/),
        publicKeyToken: expect.stringMatching(/^[0-9a-f]{16}$/),
      }),
    );
    expect(t.fields).toEqual(expect.arrayContaining([{ name: 'Edition', value: 'Floating' }]));
  });

  it('assemblies carry the id of an existing assembly record or none, never 0; unset expiries are null', async () => {
    const all = await http(svc, 'GET', '/v1/assemblies?take=1000', { key: svc.adminKey });
    const real = new Set(all.body.assemblies.map((a: { id: number }) => a.id));
    const rels = svc.db.prepare('SELECT DISTINCT product_id, release_id FROM license_templates').all() as {
      product_id: number;
      release_id: number;
    }[];
    let withId = 0;
    let without = 0;
    for (const x of rels) {
      const r = await http(svc, 'GET', path(x.product_id, x.release_id, '?take=1000'), { key: svc.adminKey });
      for (const t of r.body.licenseTemplates as LicenseTemplate[]) {
        for (const a of t.assemblies as { id?: number }[]) {
          if ('id' in a) (withId++, expect(real.has(a.id)).toBe(true));
          else without++;
        }
        for (const f of [...t.features, ...t.restrictions])
          expect(f.expireDate === null || !Number.isNaN(Date.parse(f.expireDate))).toBe(true);
      }
    }
    expect(withId).toBeGreaterThan(0);
    expect(without).toBeGreaterThan(0);
  });

  it('select Id, Name, Product returns only those, the product object included', async () => {
    const r = await http(svc, 'GET', path(rel.product, rel.release, '?select=Id,%20Name,%20Product'), { key: svc.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.licenseTemplates).toEqual(
      templates(rel.product, rel.release).map((t) => ({ id: t.id, name: t.name, product: t.product })),
    );
  });

  it('filter, sort, take and skip apply within the release', async () => {
    const want = templates(rel.product, rel.release).sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : a.id - b.id));
    const r = await http(svc, 'GET', path(rel.product, rel.release, '?sort=Name%20desc&take=1&skip=1'), { key: svc.adminKey });
    expect(r.body.licenseTemplates).toEqual(want.slice(1, 2));
    expect(r.body.totalLicenseTemplatesCount).toBe(want.length);
    const f = await http(
      svc,
      'GET',
      path(rel.product, rel.release, `?filter=${encodeURIComponent('GenerateKeyInfo = true && Format = "Xml"')}`),
      { key: svc.adminKey },
    );
    expect(f.status).toBe(200);
    expect(f.body.licenseTemplates).toEqual(templates(rel.product, rel.release, "AND t.generate_key_info = 1 AND t.format = 'Xml'"));
  });
});

describe('GET /v1/products/{productId}/releases/{releaseId}/license-templates: not found and bad input (contract §1, §2, §8)', () => {
  it('unknown product → 404 code 5', async () => {
    const p = (svc.db.prepare('SELECT max(id) FROM products').pluck().get() as number) + 1;
    const r = await http(svc, 'GET', path(p, rel.release), { key: svc.adminKey });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, code: Code.NOT_FOUND });
    expect(r.body.message).toContain(`product with id ${p}`);
  });

  it('unknown release → 404 code 5', async () => {
    const x = (svc.db.prepare('SELECT max(id) FROM releases').pluck().get() as number) + 1;
    const r = await http(svc, 'GET', path(rel.product, x), { key: svc.adminKey });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, code: Code.NOT_FOUND });
    expect(r.body.message).toContain(String(x));
  });

  it("a release of another product → 404, never that product's templates", async () => {
    const other = svc.db.prepare('SELECT id FROM releases WHERE product_id <> ? LIMIT 1').pluck().get(rel.product) as number;
    const r = await http(svc, 'GET', path(rel.product, other), { key: svc.adminKey });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(Code.NOT_FOUND);
    expect(r.body.licenseTemplates).toBeUndefined();
  });

  for (const [p, r] of [
    ['0', '1'],
    ['1', '0'],
    [String(INT32_MAX + 1), '1'],
    ['1', String(INT32_MAX + 1)],
    ['x', '1'],
    ['1', 'y'],
    ['-3', '1'],
  ]) {
    it(`productId ${p}, releaseId ${r} → 400 code 3 naming the parameter`, async () => {
      const res = await http(svc, 'GET', path(p!, r!), { key: svc.adminKey });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(Code.INVALID_ARGUMENT);
      expect(res.body.message).toContain(p === '1' ? 'releaseId' : 'productId');
    });
  }

  it('a bad filter → 400 with the position', async () => {
    const r = await http(svc, 'GET', path(rel.product, rel.release, `?filter=${encodeURIComponent('Name == "a" &&')}`), {
      key: svc.adminKey,
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/position 14/);
  });

  it('JSON-array fields and product can be selected but not filtered or sorted on', async () => {
    const f = await http(svc, 'GET', path(rel.product, rel.release, `?filter=${encodeURIComponent('Components = "x"')}`), {
      key: svc.adminKey,
    });
    expect(f.status).toBe(400);
    expect(f.body.message).toMatch(/components.*can't be filtered on/);
    const s = await http(svc, 'GET', path(rel.product, rel.release, '?sort=Product'), { key: svc.adminKey });
    expect(s.status).toBe(400);
    expect(s.body.message).toMatch(/product.*can't be sorted by/);
  });
});
