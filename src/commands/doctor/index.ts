import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { AuthError } from '../../client/errors.js';
import type { ApiClient } from '../../client/request.js';
import { VERSION } from '../../cli/context.js';
import type { Column } from '../../cli/output.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime, Target } from '../../cli/runtime.js';
import { maskKey, storePath } from '../../config/profiles.js';
import nodeLines from '../../cli/node-lines.json' with { type: 'json' };
import { PROBE_ENDPOINTS, classify, inferAccess, probeAll, type ProbeResult } from './access.js';
import { outputFormats } from '../../cli/parse.js';

/** Clock skew beyond this many seconds fails the clock check: key expiry is judged on the service's clock. */
const MAX_SKEW_S = 60;

/** One line of the report: `ok` false for a warning or a failure; `fix` says what to do (for a note: the advice). */
interface Check {
  name: string;
  ok: boolean;
  level: 'ok' | 'note' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

/** The whole report (`-o json` prints exactly this). */
interface DoctorReport {
  ok: boolean;
  checks: Check[];
  endpoints: ProbeResult[];
  /** the owner's likely role (null: unknown or not probed) */
  role: string | null;
}

const pass = (name: string, detail: string): Check => ({ name, ok: true, level: 'ok', detail });
/** Passes (exit 0), but says something worth knowing and what to do about it. */
const note = (name: string, detail: string, fix: string): Check => ({ name, ok: true, level: 'note', detail, fix });
const warn = (name: string, detail: string, fix: string): Check => ({ name, ok: false, level: 'warn', detail, fix });
const fail = (name: string, detail: string, fix: string): Check => ({ name, ok: false, level: 'fail', detail, fix });

/**
 * `node`: this Node.js (`version` "26.1.0", a leading "v" allowed) against src/cli/node-lines.json
 * on the day `today`: fail below its floor (package.json engines.node); warn for a line past
 * its end of life (the Node.js release schedule's dates) or newer than the lines lic is
 * tested on; pass otherwise.
 */
export function nodeCheck(version: string, today: Date = new Date()): Check {
  const v = version.replace(/^v/, '');
  const [major = 0, minor = 0, patch = 0] = v.split('.').map(Number);
  const [fMajor = 0, fMinor = 0, fPatch = 0] = nodeLines.floor.split('.').map(Number);
  const supported = nodeLines.supported;
  const newest = supported[supported.length - 1] ?? fMajor;
  const lines = `${supported.slice(0, -1).join(', ')} or ${newest}`;
  const get = `install Node.js ${newest} (https://nodejs.org/en/download, or \`nvm install ${newest}\`)`;
  const eol = (nodeLines.endOfLife as Record<string, string | undefined>)[String(major)];
  const belowFloor = major !== fMajor ? major < fMajor : minor !== fMinor ? minor < fMinor : patch < fPatch;
  if (belowFloor) {
    return fail('node', `Node.js ${v} is not supported: lic needs Node.js ${lines} (${nodeLines.floor} or newer)`, get);
  }
  if (eol !== undefined && Date.parse(`${eol}T00:00:00Z`) <= today.getTime()) {
    return warn('node', `Node.js ${v}: Node ${major} reached its end of life on ${eol} (no more security fixes)`, get);
  }
  if (!supported.includes(major)) {
    const why = major > newest ? `newer than the lines lic is tested on (${lines})` : `not a line lic is tested on (${lines})`;
    return warn('node', `Node.js ${v} is ${why}`, `if anything fails, ${get}`);
  }
  return pass('node', `Node.js ${v}${eol ? ` (supported until ${eol})` : ''}`);
}

/** `config file`: the profile store's path and mode; anything but 0600 (on POSIX) is a warning. */
async function configCheck(path: string): Promise<Check> {
  let mode: number;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return pass('config file', `${path} (not created yet: no profile saved)`);
    return fail('config file', `${path}: ${(e as Error).message}`, `check the permissions of ${path}`);
  }
  const octal = mode.toString(8).padStart(4, '0');
  if (process.platform === 'win32' || mode === 0o600) return pass('config file', `${path} (mode ${octal})`);
  return warn('config file', `${path} has mode ${octal}: others may read the API keys in it`, `chmod 600 ${path}`);
}

/** `settings`: the profile in use and where each setting came from. */
async function settingsCheck(rt: Runtime): Promise<{ check: Check; target?: Target }> {
  try {
    const s = await rt.settingSources();
    const target = await rt.target();
    const profile = s.profile.value === null ? 'no profile' : `profile ${s.profile.value} (from ${s.profile.from})`;
    // a keyring that can't give the key is the API key check's to report
    const apiKey = await rt.apiKey().catch(() => undefined);
    const key = target.keyFrom === 'none' ? 'no API key' : `API key ${apiKey ? maskKey(apiKey) : '(not readable)'} (from ${s.apiKey.from})`;
    const net = await rt.network();
    const ca = net.caFile ? `; CA file ${net.caFile.value} (from ${net.caFile.from})` : '';
    const detail = `${profile}; base URL ${s.baseUrl.value} (from ${s.baseUrl.from}); ${key}; timeout ${net.timeoutMs.value / 1000}s (from ${net.timeoutMs.from}), retries ${net.retries.value} (from ${net.retries.from})${ca}`;
    return { check: pass('settings', detail), target };
  } catch (e) {
    return {
      check: fail(
        'settings',
        (e as Error).message,
        'run `lic profile list` and pick an existing profile (--profile, LIC_PROFILE), or fix the profile store',
      ),
    };
  }
}

/** The client for the probes: the configured one, or (no usable key) an anonymous one for reachability only. */
async function probeClient(rt: Runtime, target: Target): Promise<{ client: ApiClient; keyProblem?: Check }> {
  try {
    return { client: await rt.client() };
  } catch (e) {
    // loaded here, not at start: every command module is initialised when the program is built
    const { KeyringError } = await import('../../config/keyring.js');
    const addFix = `lic profile add ${target.profileName ?? 'NAME'} --base-url ${target.baseUrl}   (or set LIC_API_KEY)`;
    const keyProblem =
      e instanceof KeyringError
        ? fail('API key', e.message, 'unlock the keyring (its own tool, e.g. Seahorse on GNOME), or set LIC_API_KEY')
        : e instanceof AuthError
          ? fail('API key', e.message, addFix)
          : fail('API key', (e as Error).message, 'fix the setting named in the message');
    const { ApiClient } = await import('../../client/request.js');
    // the same timeout as every command (flag > env > profile > default); a bad setting: the default
    const net = await rt.network().catch(() => undefined);
    const client = new ApiClient({ baseUrl: target.baseUrl, userAgent: `lic/${VERSION}`, timeoutMs: net?.timeoutMs.value });
    return { client, keyProblem };
  }
}

const TLS_ERROR = /certificate|self[- ]signed|TLS|SSL|handshake|UNABLE_TO_VERIFY|CERT_/i;

/**
 * `lic doctor`: runs the local checks (node, config file, settings), then GETs only:
 * one probe for reachability, TLS, the clock and the key, then the other list
 * endpoints (a few at a time) for what the key may do. Never sends a write, never
 * prints the key (prefix only). Sets exit code 1 (through the returned report) when a
 * check is not ok.
 */
async function runDoctor(rt: Runtime): Promise<DoctorReport> {
  const checks: Check[] = [nodeCheck(process.versions.node), await configCheck(storePath(rt.ctx.configDir))];
  const settings = await settingsCheck(rt);
  checks.push(settings.check);
  let endpoints: ProbeResult[] = [];
  let role: string | null = null;
  if (settings.target) {
    const t = settings.target;
    const { client, keyProblem } = await probeClient(rt, t);
    try {
      const first = PROBE_ENDPOINTS[0]!;
      let reply: Awaited<ReturnType<ApiClient['probe']>> | undefined;
      let netError: Error | undefined;
      try {
        reply = await client.probe(first.path, first.query);
      } catch (e) {
        netError = e as Error;
      }
      const https = new URL(t.baseUrl).protocol === 'https:';
      const tlsFailed = netError !== undefined && ((netError as { kind?: string }).kind === 'tls' || TLS_ERROR.test(netError.message));
      if (reply) checks.push(pass('reachable', `${new URL(t.baseUrl).origin} answered (HTTP ${reply.status})`));
      else if (!tlsFailed)
        checks.push(
          fail(
            'reachable',
            netError!.message,
            `check the base URL (--base-url, LIC_BASE_URL or \`lic profile add\`) and that the service runs there (locally: \`lic serve\`)`,
          ),
        );
      if (https) {
        checks.push(
          tlsFailed
            ? fail(
                'TLS',
                netError!.message,
                "the service's certificate is not trusted: fix the certificate, or trust its CA (--ca-file ca.pem, saved in the profile, or NODE_EXTRA_CA_CERTS=ca.pem)",
              )
            : reply
              ? pass('TLS', 'certificate verified')
              : pass('TLS', 'not reached'),
        );
      } else {
        checks.push(pass('TLS', 'not used (http://)'));
      }
      if (reply) {
        checks.push(clockCheck(reply.headers.date, rt.ctx.now()));
        const apiKey = keyProblem ? undefined : await rt.apiKey();
        if (keyProblem) checks.push(keyProblem);
        else if (reply.status === 401) {
          checks.push(
            fail(
              'API key',
              `${maskKey(apiKey)} not accepted (HTTP 401: unknown, revoked or expired)`,
              'have an Administrator create a new key (`lic keys create`), then save it: `lic profile add NAME --base-url URL --api-key-stdin`',
            ),
          );
        } else if (reply.status === 429) {
          checks.push(
            fail(
              'API key',
              'the service refused with 429 (too many requests or failed authentications)',
              'wait a while and run `lic doctor` again',
            ),
          );
        } else if (classify(reply.status) === 'error') {
          checks.push(
            fail(
              'API key',
              `could not tell: GET ${first.path} answered HTTP ${reply.status}`,
              'check the service (its log), or that the base URL points at the API and not at another server',
            ),
          );
        } else {
          checks.push(pass('API key', `${maskKey(apiKey)} accepted`));
          const rest = await probeAll(client, PROBE_ENDPOINTS.slice(1));
          const firstResult: ProbeResult = { endpoint: first.name, path: first.path, status: reply.status, access: classify(reply.status) };
          endpoints = [firstResult, ...rest];
          const v = inferAccess(endpoints);
          role = v.role ?? null;
          checks.push(permissionsCheck(v, endpoints));
        }
      } else if (keyProblem) {
        checks.push(keyProblem);
      }
    } finally {
      await client.close();
    }
  }
  const storage = settings.target && (await keyStorageCheck(rt, settings.target, role, storePath(rt.ctx.configDir)));
  if (storage) checks.push(storage);
  return { ok: checks.every((c) => c.ok), checks, endpoints, role };
}

/**
 * `key storage`: where the key in use is kept. The keyring or the environment pass; a key in
 * the profile file passes unless the probes found it is an Administrator's (it can create and
 * delete keys and purge the log): then, where a keyring is reachable, a warning with the
 * command that moves it; where none is (a server, CI, a container: `lic serve` and `profile
 * add` put the key in the file, as documented), a note (exit 0) with advice that works there.
 * Whatever the role, a profile file that group or others may read or write (its real mode,
 * fs.stat) is a warning naming the file, its mode and `chmod 600 FILE`.
 * Undefined when there is no key.
 */
async function keyStorageCheck(rt: Runtime, t: Target, role: string | null, file: string): Promise<Check | undefined> {
  if (t.keyFrom === 'none') return undefined;
  if (t.keyFrom === 'LIC_API_KEY') return pass('key storage', 'from LIC_API_KEY: nothing stored by lic');
  if (t.keyFrom === 'keyring') return pass('key storage', `profile ${t.profileName}: in the keyring`);
  // the file's real mode, not the 0600 lic writes it with: a chmod, a copy or a restore can open it
  const mode = await stat(file).then(
    (st) => st.mode & 0o777,
    () => undefined,
  );
  const octal = mode === undefined ? undefined : mode.toString(8).padStart(4, '0');
  const where = `${file}${octal ? ` (mode ${octal})` : ''}`;
  if (mode !== undefined && process.platform !== 'win32' && (mode & 0o077) !== 0) {
    return warn(
      'key storage',
      `profile ${t.profileName}: ${role === 'Administrator' ? 'an Administrator key' : 'the API key'} in plain text in ${file}, which has mode ${octal}: other accounts on this machine can read it`,
      `chmod 600 ${file}`,
    );
  }
  if (role === 'Administrator') {
    // loaded here, not at start: every command module is initialised when the program is built
    const { noKeyringReason } = await import('../../config/key-storage.js');
    const noKeyring = await noKeyringReason(rt.ctx.keyring, t.profileName!, file);
    if (noKeyring !== undefined)
      return note(
        'key storage',
        `profile ${t.profileName}: an Administrator key in plain text in ${where}; no keyring on this machine (${noKeyring})`,
        `nothing to move: keep the file private to this account${octal ? ` (it is ${octal})` : ''}, or pass the key from your secret store as LIC_API_KEY instead of saving it`,
      );
    return warn(
      'key storage',
      `profile ${t.profileName}: an Administrator key in plain text in ${file}`,
      '`lic profile migrate --to keyring` moves it into the keyring',
    );
  }
  return pass('key storage', `profile ${t.profileName}: in plain text in ${where}${role ? '' : '; role unknown'}`);
}

/** `clock`: the reply's Date header against the local clock; beyond MAX_SKEW_S fails. */
function clockCheck(date: string | undefined, now: Date): Check {
  const at = date ? Date.parse(date) : NaN;
  if (!Number.isFinite(at)) return pass('clock', 'the service sent no Date header: skew unknown');
  // the header has whole seconds: compare whole seconds
  const skew = Math.floor(now.getTime() / 1000) - Math.floor(at / 1000);
  const detail = skew === 0 ? 'in step with the service' : `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the service`;
  return Math.abs(skew) > MAX_SKEW_S
    ? warn(
        'clock',
        `${detail} (more than ${MAX_SKEW_S} s): relative times (--expires 90d, --since 24h) and key expiry will be off`,
        'synchronise the clock (NTP: e.g. `timedatectl set-ntp true`)',
      )
    : pass('clock', detail);
}

/** `permissions`: the role and Read bit the endpoint table implies. */
function permissionsCheck(v: ReturnType<typeof inferAccess>, endpoints: ProbeResult[]): Check {
  const errors = endpoints.filter((e) => e.access === 'error');
  if (errors.length) {
    return fail(
      'permissions',
      `could not probe ${errors.map((e) => `${e.endpoint} (${e.detail})`).join(', ')}`,
      'run `lic doctor -v` to see the requests; check the service',
    );
  }
  if (!v.readBit) {
    return fail(
      'permissions',
      'every list endpoint answered 403: the key lacks the Read bit (1), or its owner has no role',
      'give the key Read: `lic keys update ID --perm read` (with an Administrator key), or create a new key',
    );
  }
  if (!v.role) return pass('permissions', `allowed: ${v.allowed.join(', ')} (matches no single role)`);
  return pass('permissions', `role ${v.role} (likely); Read bit set`);
}

const MARK = { ok: '✓', note: 'i', warn: '!', fail: '✗' } as const;
const TONE = { ok: 'ok', note: 'dim', warn: 'warn', fail: 'bad' } as const;

/** The check list's columns: the mark (✓ ! ✗, colored on a terminal), the check, and its result with the fix, wrapped on a terminal. */
export const CHECK_COLUMNS: Column<Check>[] = [
  { header: '', kind: 'label', get: (c) => MARK[c.level], tone: (c) => TONE[c.level] },
  { header: 'check', kind: 'label', get: (c) => c.name },
  // prose with URLs and fixes in it: wrapped on a terminal, never cut
  { header: 'result', wrap: true, get: (c) => (c.fix ? `${c.detail} — fix: ${c.fix}` : c.detail) },
];

/** The endpoint table's columns: what the key may call. */
export const ENDPOINT_COLUMNS: Column<ProbeResult>[] = [
  { header: 'endpoint', kind: 'label', get: (e) => e.endpoint },
  { header: 'path', kind: 'url', get: (e) => e.path },
  {
    header: 'access',
    kind: 'label',
    get: (e) => e.access,
    tone: (e) => (e.access === 'allowed' ? 'ok' : e.access === 'denied' ? 'dim' : 'bad'),
  },
  { header: 'status', get: (e) => e.status ?? e.detail ?? '' },
];

/** Prints the report: json as is; otherwise the check list, the fixes, and the endpoint table. */
async function printDoctor(report: DoctorReport, rt: Runtime): Promise<void> {
  if (rt.out.opts.format === 'json' || rt.out.opts.format === 'ndjson') return rt.out.json(report);
  await rt.out.list(report.checks, report.checks, CHECK_COLUMNS);
  if (report.endpoints.length) {
    if (rt.ctx.stdout.isTTY) rt.out.raw('\n');
    await rt.out.list(report.endpoints, report.endpoints, ENDPOINT_COLUMNS);
  }
}

/** Declares `lic doctor`. */
export function registerDoctor(program: Command, deps: CommandDeps, run = runDoctor): void {
  outputFormats(program.command('doctor'))
    .description('Check the setup: config file, profile, service reachable, TLS, clock, key, and what the key may do (GETs only)')
    .addHelpText(
      'after',
      '\nExit 0 when every check passes, 1 otherwise; each failed check says how to fix it.\n' +
        "\nExamples:\n  lic doctor\n  lic doctor --profile prod -o json | jq '.checks[] | select(.ok | not)'",
    )
    .action(async (_o: unknown, cmd: Command) => {
      const rt = deps.runtimeOf(cmd);
      const report = await run(rt);
      await printDoctor(report, rt);
      if (!report.ok) throw new DoctorFailed(report.checks.filter((c) => !c.ok).length);
    });
}

/** Some checks did not pass: exit 1 with a one-line summary (the report itself is already printed). */
class DoctorFailed extends Error {
  constructor(readonly failed: number) {
    super(`${failed} check${failed === 1 ? '' : 's'} did not pass`);
    this.name = 'DoctorFailed';
  }
}
