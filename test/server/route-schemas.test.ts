import { Ajv } from 'ajv';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/server/db.js';
import { registerRoutes } from '../../src/server/routes/index.js';

// buildApp compiles a route's validators on its first request (cold start), so a schema ajv
// refuses would show only then, as a 500: compile every one here instead.
describe('route schemas', () => {
  it('every request schema of every route compiles with ajv', async () => {
    const db = openDatabase(':memory:');
    const app = Fastify();
    const seen: { route: string; schema: object }[] = [];
    app.setValidatorCompiler(({ schema, method, url, httpPart }) => {
      seen.push({ route: `${method} ${url} ${httpPart}`, schema: schema as object });
      return () => true;
    });
    await registerRoutes(app, {
      db,
      now: () => new Date(0),
      generateKey: () => '',
      sealSecret: (s) => s,
      invalidateKeys: () => {},
      write: async (_r, work) => work(),
    });
    await app.ready();
    const ajv = new Ajv({ coerceTypes: true, useDefaults: true, strict: false, verbose: true });
    const refused = seen.filter(({ schema }) => {
      try {
        ajv.compile(schema);
        return false;
      } catch {
        return true;
      }
    });
    expect(refused.map((s) => s.route)).toEqual([]);
    // the list routes' querystrings and the write routes' bodies at least
    expect(seen.filter((s) => s.route.endsWith('querystring')).length).toBeGreaterThanOrEqual(7);
    expect(seen.filter((s) => s.route.endsWith('body')).length).toBeGreaterThanOrEqual(6);
    await app.close();
    db.close();
  });
});
