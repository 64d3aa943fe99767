/**
 * The parts of undici that lic's requests use, by deep import of its lib/ modules instead
 * of its index: the index loads every dispatcher, fetch, WebSocket, the mock and cache
 * layers (~100–150 ms), where a request needs the Agent and the request API. The proxy agent is loaded by `loadEnvHttpProxyAgent` only when a
 * proxy is configured. undici 7's package has no "exports" map, so these paths resolve
 * in Node and in the esbuild bundle alike; test/client pins that they keep working.
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';

// what undici's index does at load: request(), connect() (the proxy agent's CONNECT
// tunnel), stream() ... as methods of every dispatcher
Object.assign(Dispatcher.prototype, api);

export { Agent };

/** undici's EnvHttpProxyAgent (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), loaded on first use: most runs have no proxy. */
export async function loadEnvHttpProxyAgent(): Promise<typeof import('undici').EnvHttpProxyAgent> {
  return (await import('undici/lib/dispatcher/env-http-proxy-agent.js')).default;
}
