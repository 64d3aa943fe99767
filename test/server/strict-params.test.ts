import { describe, expect, it } from 'vitest';
import { http } from '../helpers/service.js';
import { useService } from '../helpers/fixtures.js';

// contract §2: ids are plain decimal int32; ajv's coercion alone would accept these
describe('query and path numbers are plain decimal digits', () => {
  const { svc } = useService();

  for (const bad of ['1e3', '0x10', '+5', '1.0', '%207', '010x', '01', '007', '-0']) {
    it(`DELETE /v1/api-keys/${bad} is 400 naming apiKeyId`, async () => {
      const r = await http(svc, 'DELETE', `/v1/api-keys/${bad}`, { key: svc.adminKey });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, code: 3 });
      expect(r.body.message).toMatch(/^apiKeyId must be integer/);
    });
    it(`GET /v1/log?take=${bad} is 400 naming take`, async () => {
      const r = await http(svc, 'GET', `/v1/log?take=${bad}`, { key: svc.adminKey });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^take must be integer/);
    });
  }

  it('a plain id still works, and deleteAll accepts only true/false', async () => {
    expect((await http(svc, 'GET', '/v1/log?take=5&skip=0', { key: svc.adminKey })).status).toBe(200);
    const r = await http(svc, 'DELETE', '/v1/log?deleteAll=1', { key: svc.adminKey });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^deleteAll must be boolean/);
  });

  it('a path parameter of 300 characters reaches our envelope (not fastify 414)', async () => {
    const r = await http(svc, 'GET', `/v1/customer/${'C'.repeat(300)}/products`, { key: svc.adminKey });
    expect(r.body).toHaveProperty('success', false);
    expect(typeof r.body.code).toBe('number');
  });
});
