/**
 * A transforming reverse proxy (node:http on 127.0.0.1:0) in front of a real service
 * (startTestService), for replies the reference service never sends but another
 * implementation of the published API does (contract §1, §2):
 *
 * - `strip-defaults`: every field holding a default value (false, 0, "", null, an empty
 *   array), recursively, is left out, the way the original service writes JSON
 *   (IgnoreJSonDefaultValues) — including an empty list's array and its zero total;
 * - `int-strings`: integers under id-like keys (`id`, `…Id`, `…Count`, `permissions`,
 *   `dataSize`) are sent as decimal strings, as protobuf JSON writes int64;
 * - `strip-properties`: log entries without `properties`, as a service that stores none
 *   (the values are then only in the message);
 * - `xml-properties`: log entries' JSON `properties` rewritten as Serilog's XML
 *   (`<properties><property key='K'>V</property>…`, the MSSqlServer sink's default).
 *
 * Requests pass through unchanged; only JSON reply bodies are rewritten.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { listenOnFreePort } from './fake-server.js';

export type ProxyMode = 'strip-defaults' | 'int-strings' | 'strip-properties' | 'xml-properties';

export interface TransformProxy {
  url: string;
  /** requests forwarded so far */
  requests: number;
  close(): Promise<void>;
}

/** `v` without its default-valued fields, recursively (arrays keep their items, minus nothing). */
function stripDefaults(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDefaults);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = stripDefaults(x);
    if (y === false || y === 0 || y === '' || y === null || (Array.isArray(y) && y.length === 0)) continue;
    out[k] = y;
  }
  return out;
}

const INT_KEY = /^(id|.*Id|.*Count|permissions|dataSize)$/;

/** `v` with integers under id-like keys as decimal strings, recursively. */
function intsAsStrings(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(intsAsStrings);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    out[k] = typeof x === 'number' && Number.isInteger(x) && INT_KEY.test(k) ? String(x) : intsAsStrings(x);
  return out;
}

const xmlEscape = (s: string) => s.replace(/[&<>'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** `v` with every string `properties` field left out (`strip`) or rewritten from JSON to Serilog's XML, recursively. */
function rewriteProperties(v: unknown, strip: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => rewriteProperties(x, strip));
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'properties' && typeof x === 'string') {
      if (strip) continue;
      const props = JSON.parse(x) as Record<string, unknown>;
      const items = Object.entries(props).map(
        ([name, value]) =>
          `<property key='${xmlEscape(name)}'>${xmlEscape(typeof value === 'string' ? value : JSON.stringify(value))}</property>`,
      );
      out[k] = `<properties>${items.join('')}</properties>`;
    } else out[k] = rewriteProperties(x, strip);
  }
  return out;
}

const TRANSFORMS: Record<ProxyMode, (v: unknown) => unknown> = {
  'strip-defaults': stripDefaults,
  'int-strings': intsAsStrings,
  'strip-properties': (v) => rewriteProperties(v, true),
  'xml-properties': (v) => rewriteProperties(v, false),
};

/** Starts a proxy to `target` (a base URL) that rewrites JSON replies per `mode`. */
export async function startTransformProxy(target: string, mode: ProxyMode): Promise<TransformProxy> {
  const upstream = new URL(target);
  let requests = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    const fwd = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (up) => {
        const chunks: Buffer[] = [];
        up.on('data', (c: Buffer) => chunks.push(c));
        up.on('end', () => {
          let body = Buffer.concat(chunks);
          const headers = { ...up.headers };
          if (String(up.headers['content-type'] ?? '').includes('json')) {
            const parsed = JSON.parse(body.toString('utf8')) as unknown;
            body = Buffer.from(JSON.stringify(TRANSFORMS[mode](parsed)));
          }
          headers['content-length'] = String(body.length);
          delete headers['transfer-encoding'];
          res.writeHead(up.statusCode ?? 502, headers);
          res.end(body);
        });
      },
    );
    fwd.on('error', () => (res.writeHead(502), res.end()));
    req.pipe(fwd);
  });
  const port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
