import { InvalidArgumentError, Option, type Command } from 'commander';
import { describeFsError, MiB, readFileBounded, sayReadingTerminal } from '../../cli/files.js';
import { UsageError } from '../../cli/errors.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { reservedHeaderReason } from '../../client/headers.js';
import { DRY_RUN_HELP } from '../../cli/dry-run-option.js';
import { choiceOf } from '../../cli/parse.js';

/** Largest `--input` body: 10 MiB, the service's body limit (contract §9). */
export const MAX_INPUT_BYTES = 10 * MiB;

const API_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

interface ApiOptions {
  path: string;
  method?: (typeof API_METHODS)[number];
  field: [string, string][];
  input?: string;
  yes?: boolean;
  /** `-H 'Name: value'` request headers, lower-case names */
  header?: [string, string][];
  /** print the request instead of sending it (any method) */
  dryRun?: boolean;
}

/** `-f key=value` → a [key, value] pair; the value may be empty, the key may not. */
function parseQueryPair(value: string, previous: [string, string][] = []): [string, string][] {
  const i = value.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError('expected key=value, e.g. -f take=5 or -f filter=\'Level = "Warning"\'.');
  return [...previous, [value.slice(0, i), value.slice(i + 1)]];
}

/**
 * `-H 'Name: value'` → a [name, value] pair (gh api -H): an RFC 9110 token name, a value
 * without control characters. The headers the client owns (x-api-key, host,
 * content-length, transfer-encoding, connection) are refused: exit 2, nothing sent — the
 * key comes from the profile or LIC_API_KEY, never from argv.
 */
function parseHeader(value: string, previous: [string, string][] = []): [string, string][] {
  const i = value.indexOf(':');
  const name = value.slice(0, Math.max(i, 0)).trim().toLowerCase();
  const v = value.slice(i + 1).trim();
  if (i <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
    throw new InvalidArgumentError("expected 'Name: value', e.g. -H 'Accept-Language: de'.");
  // commander would quote the whole argument, which for x-api-key is a secret: a UsageError quotes only the name
  const reserved = reservedHeaderReason(name);
  if (reserved) throw new UsageError(`-H ${name}: ${reserved}`);
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(v)) throw new InvalidArgumentError(`expected a header value without control characters.`);
  return [...previous, [name, v]];
}

/** An API path: `/v1/...` (or `/openapi.json`), no query (use -f), no scheme or host (that is the profile's). */
function parseApiPath(value: string): string {
  if (!/^\/(v1\/[^?#\s]*|openapi\.json)$/.test(value)) {
    throw new InvalidArgumentError('expected a path of the API such as /v1/log or /v1/api-keys/3 (query parameters go in -f key=value).');
  }
  return value;
}

/**
 * `lic api PATH`: one raw call of the management API with the profile's key, for what no
 * verb covers yet (gh api style). Prints the service's reply unchanged; errors map to the
 * usual exit codes. DELETE confirms like every delete (`--yes` off a terminal).
 */
async function runApi(opts: ApiOptions, rt: Runtime): Promise<void> {
  let body: unknown;
  if (opts.input !== undefined) {
    let bytes: Buffer;
    try {
      // bounded: `--input /dev/zero` or an endless pipe stops one byte past the limit
      if (opts.input === '-') sayReadingTerminal(rt.ctx, 'the request body');
      bytes = opts.input === '-' ? await rt.ctx.stdin.readAll(MAX_INPUT_BYTES) : await readFileBounded(opts.input, MAX_INPUT_BYTES);
    } catch (e) {
      throw new UsageError(`--input ${opts.input}: ${describeFsError(e)}`);
    }
    if (bytes.length > MAX_INPUT_BYTES)
      throw new UsageError(`--input ${opts.input}: more than ${MAX_INPUT_BYTES} bytes (10 MiB, the service's body limit)`);
    const text = bytes.toString('utf8');
    try {
      body = JSON.parse(text);
    } catch {
      throw new UsageError(`--input ${opts.input}: not valid JSON`);
    }
  }
  const method = opts.method ?? (body === undefined ? 'GET' : 'POST');
  if (body !== undefined && (method === 'GET' || method === 'DELETE')) throw new UsageError(`--input: ${method} sends no body`);
  if (method === 'DELETE')
    await rt.confirm(`DELETE ${opts.path}${opts.field.length ? ` (${opts.field.map(([k, v]) => `${k}=${v}`).join(', ')})` : ''}`, opts.yes);
  const client = await rt.client();
  const headers = opts.header?.length ? Object.fromEntries(opts.header) : undefined;
  const request = { query: Object.fromEntries(opts.field), body, ...(headers ? { headers } : {}) };
  if (opts.dryRun) {
    // the call is the whole command, so a dry run sends it for no method, GET included
    const { DryRunStop, describeRequest } = await import('../../client/dry-run.js');
    throw new DryRunStop(describeRequest(client, method, opts.path, request));
  }
  const reply = await client.request(method, opts.path, request);
  rt.out.json(reply);
}

/** Registers `lic api PATH [-X METHOD] [-f key=value]... [-H 'Name: value']... [--input FILE|-] [--yes]`. */
export function registerApi(program: Command, deps: CommandDeps, run = runApi): void {
  program
    .command('api')
    .description("Call the management API directly with the profile's key; prints the reply as JSON")
    .argument('<path>', 'API path, e.g. /v1/log', parseApiPath)
    .addOption(
      new Option('-X, --method <method>', 'HTTP method (default GET, or POST with --input)')
        .choices(API_METHODS)
        .argParser(choiceOf(API_METHODS)),
    )
    .option('-f, --field <key=value>', 'a query parameter; repeat for more', parseQueryPair, [])
    .option('--input <file>', 'JSON request body from a file, or - for stdin (at most 10 MiB)')
    .option('-H, --header <name:value>', "a request header, 'Name: value'; repeat for more (not x-api-key)", parseHeader, [])
    .option('-y, --yes', 'do not ask before a DELETE')
    .option('--dry-run', `${DRY_RUN_HELP} (any method)`)
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  lic api /v1/log -f take=5 -f filter=\'Level = "Error"\'\n' +
        '  lic api /v1/resources -f select=Id,Name | jq .resources\n' +
        "  lic api /v1/log -H 'Accept-Language: de'\n" +
        '  echo \'{"assembly":{"name":"MyLib","version":"1.0.0.0"}}\' | lic api /v1/assemblies --input -\n' +
        '  lic api -X DELETE /v1/log -f startDate=2025-01-01 -f endDate=2025-02-01 --yes\n' +
        '  lic api -X DELETE /v1/api-keys/12 --dry-run',
    )
    .action(async (path: string, o: Omit<ApiOptions, 'path'>, cmd: Command) => run({ ...o, path }, deps.runtimeOf(cmd)));
}
