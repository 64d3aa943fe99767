/**
 * Raw HTTP/1.1 over a socket, for what an HTTP client library would refuse to send or
 * would tidy up (oversized headers, broken request lines, pipelining): exactly these
 * bytes go out, and the replies come back unparsed, then split here.
 */
import { connect } from 'node:net';

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `bytes` to `url`'s host and port and collects what comes back until the server
 * closes the connection, or `idleMs` pass without a byte (then we close it). With
 * `halfClose` our side is ended after the bytes (nothing more will come), so a server
 * closes as soon as it has answered. Resolves with the raw text and whether the server
 * closed first.
 */
export function rawExchange(
  url: string,
  bytes: string | Buffer,
  idleMs = 1500,
  halfClose = false,
): Promise<{ text: string; serverClosed: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
    let text = '';
    let serverClosed = true;
    let timer = setTimeout(idle, idleMs);
    function idle() {
      serverClosed = false;
      socket.destroy();
    }
    socket.on('data', (d) => {
      text += d.toString('utf8');
      clearTimeout(timer);
      timer = setTimeout(idle, idleMs);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, serverClosed });
    });
  });
}

/** Splits raw HTTP/1.1 replies (content-length bodies; not to HEAD, whose replies have none) into status, lower-cased headers and body. */
export function parseReplies(text: string): RawReply[] {
  const out: RawReply[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`not an HTTP reply: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(statusLine!)?.[1]);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = end + 4;
    const bytes = Buffer.from(rest.slice(bodyStart), 'utf8');
    const body = bytes.subarray(0, length).toString('utf8');
    out.push({ status, headers, body });
    rest = bytes.subarray(length).toString('utf8');
  }
  return out;
}
