/**
 * The connection side of a request: the pool (or proxy agent) a client sends through —
 * node:http for a plain http:// service (node-http.ts), undici for a proxy, extra CAs or
 * https:// — which URLs go through the proxy, and the small helpers a dispatcher needs.
 */
import { rootCertificates } from 'node:tls';
import type { Dispatcher } from 'undici';
import { NodeHttpDispatcher, type PlainReply, type PlainRequest } from './node-http.js';

/** Proxies as in HTTP_PROXY / HTTPS_PROXY / NO_PROXY (read from the environment by the caller). */
export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

/** What sendOnce and probe ask of a dispatcher: undici's `request()` (the options they pass) and `destroy()`. */
export interface RequestDispatcher {
  request(o: PlainRequest & { headersTimeout?: number; bodyTimeout?: number }): Promise<PlainReply | Dispatcher.ResponseData>;
  destroy(): Promise<void>;
}

/**
 * A dispatcher for one client of `baseUrl`: for an http:// service with no proxy variable
 * and no extra CA, node:http's keep-alive pool (node-http.ts: nothing to load); otherwise
 * undici's Agent (keep-alive pool per origin) with `connectTimeoutMs` on connect and `ca`
 * (PEM) added to Node's bundled roots, never replacing them; with a proxy configured,
 * undici's EnvHttpProxyAgent with the same settings. `beforeUndici` runs just before undici
 * is first loaded.
 */
export async function createDispatcher(
  baseUrl: string,
  connectTimeoutMs: number,
  ca?: string[],
  proxy?: ProxySettings,
  beforeUndici?: () => void,
): Promise<RequestDispatcher> {
  const proxied = Boolean(proxy && (proxy.httpProxy || proxy.httpsProxy));
  if (!proxied && !ca?.length && baseUrl.startsWith('http:')) return new NodeHttpDispatcher();
  const roots = ca?.length ? [...rootCertificates, ...ca] : undefined;
  const connect = { timeout: connectTimeoutMs, ...(roots ? { ca: roots } : {}) };
  beforeUndici?.();
  const { Agent, loadEnvHttpProxyAgent } = await import('./undici.js');
  if (!proxied) return new Agent({ connect }) as RequestDispatcher;
  const EnvHttpProxyAgent = await loadEnvHttpProxyAgent();
  // '' (not undefined) so undici does not fall back to process.env: the Context's env is the truth.
  // proxyTunnel false: an http:// target goes as an absolute-form request (`GET http://host/path`),
  // as curl sends it, which every forward proxy serves (Squid refuses CONNECT to ports other
  // than 443); an https:// target still goes through a CONNECT tunnel
  return new EnvHttpProxyAgent({
    httpProxy: proxy?.httpProxy ?? '',
    httpsProxy: proxy?.httpsProxy ?? '',
    noProxy: proxy?.noProxy ?? '',
    proxyTunnel: false,
    connect,
    ...(roots ? { requestTls: { ca: roots } } : {}),
  }) as RequestDispatcher;
}

/** Whether `url` goes through a proxy: HTTPS_PROXY/HTTP_PROXY as undici picks them, minus NO_PROXY (host or domain suffix, `*`). */
export function isProxied(url: string, p: ProxySettings | undefined): boolean {
  const u = new URL(url);
  if (!(u.protocol === 'https:' ? p?.httpsProxy || p?.httpProxy : p?.httpProxy)) return false;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return !(p?.noProxy ?? '')
    .split(/[,\s]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === '*') return true;
      const e = entry
        .toLowerCase()
        .replace(/^\*?\./, '')
        .replace(/:\d+$/, '');
      return host === e || host.endsWith(`.${e}`);
    });
}

/**
 * Stops reading a reply body and drops its connection. undici's body emits an abort
 * error when destroyed with no reader attached; nobody wants that error (we stopped on
 * purpose), and unheard it would be an uncaught exception, so it is swallowed.
 */
export function discard(body: { on(event: 'error', f: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** `url` split as undici's dispatcher.request() takes it (what undici's top-level request() does with a URL). */
export function originAndPath(url: string): { origin: string; path: string } {
  const u = new URL(url);
  return { origin: u.origin, path: u.pathname + u.search };
}
