/**
 * Names of network failures: what undici or the socket threw → a NetworkErrorKind and one
 * line for the user, and how a retry notice names each kind.
 */
import type { NetworkErrorKind } from './errors.js';
import { formatDuration } from '../time.js';

/** How each network failure is named in a retry notice (`… <origin>, retry 1/2 in 0.5s`). */
export const NETWORK_NOTICE: Record<NetworkErrorKind, string> = {
  refused: 'connection refused by',
  dns: 'cannot resolve',
  timeout: 'timed out waiting for',
  proxy: 'the proxy refused a tunnel to',
  reset: 'connection reset by',
  closed: 'connection closed early by',
  tls: 'TLS failure with',
  other: 'network error with',
};

/** OpenSSL verification codes meaning "we don't trust this certificate". */
const UNTRUSTED_CERT = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

/** The error code of `e` (a Node system error, an undici error) or of its `cause`. */
export function socketCode(e: unknown): string | undefined {
  return (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
}

/**
 * What went wrong talking to `origin` (`e`: anything undici's request threw) → its kind and
 * a message naming the origin and what to do; `timeoutMs` is quoted for a timeout.
 */
export function describeNetworkError(e: unknown, origin: string, timeoutMs: number): [NetworkErrorKind, string] {
  const code = socketCode(e);
  // by code, not by class: naming undici's classes would load undici for requests that never use it
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return ['timeout', `timed out after ${formatDuration(timeoutMs)} waiting for ${origin} (--timeout)`];
  }
  if (code && UNTRUSTED_CERT.has(code)) {
    return [
      'tls',
      `the certificate of ${origin} is not trusted (${code}): pass --ca-file PATH with the CA that signed it, or set NODE_EXTRA_CA_CERTS`,
    ];
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return ['tls', `the certificate of ${origin} is not valid for it (${code})`];
  }
  // undici's ProxyAgent when the proxy answers CONNECT with anything but 200
  const tunnel = /^Proxy response \((\d+)\) !== 200 when HTTP Tunneling$/.exec((e as Error)?.message ?? '');
  if (tunnel) {
    return [
      'proxy',
      `the proxy refused to open a tunnel to ${origin} (CONNECT answered HTTP ${tunnel[1]}): check HTTPS_PROXY, or name the host in NO_PROXY`,
    ];
  }
  switch (code) {
    case 'ECONNREFUSED':
      return ['refused', `cannot connect to ${origin}: connection refused (is the service running? try \`lic serve\`)`];
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return ['dns', `cannot resolve the host of ${origin}`];
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return ['reset', `connection to ${origin} was reset`];
    default:
      return ['other', `request to ${origin} failed: ${(e as Error).message ?? String(e)}`];
  }
}
