/**
 * The parts of undici that lic's requests use, through its public API (the package's index).
 * In the bundle, `dist/vendor/undici.cjs` holds only these names (scripts/vendor-undici.cjs),
 * not undici's whole index (fetch, WebSocket, the mock and cache layers), and the proxy agent
 * is initialised by `loadEnvHttpProxyAgent` only when a proxy is configured.
 */
import { Agent } from 'undici';

export { Agent };

/** undici's EnvHttpProxyAgent (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), loaded on first use: most runs have no proxy. */
export async function loadEnvHttpProxyAgent(): Promise<typeof import('undici').EnvHttpProxyAgent> {
  return (await import('undici')).EnvHttpProxyAgent;
}
