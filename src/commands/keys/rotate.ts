import { access, constants, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { createApiKey, deleteApiKey, listApiKeys, updateApiKey, type ApiKeyInput } from '../../client/endpoints/api-keys.js';
import type { DryRunPlan } from '../../client/dry-run.js';
import { ApiError } from '../../client/errors.js';
import type { ApiClient } from '../../client/request.js';
import { NotFoundError, UsageError } from '../../cli/errors.js';
import { describeFsError, writeFileAtomic } from '../../cli/files.js';
import { filterString, normalizeRecord } from '../../cli/list/index.js';
import { checkExpiry, outputFormats, parseExpiry, parseId } from '../../cli/parse.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { addDryRunOption } from '../../cli/dry-run-option.js';
import type { ApiKey } from '../../wire.js';
import { DAY, formatDuration, parseDurationMs } from '../../time.js';
import { API_KEY_LIST } from './list.js';

/** `keys rotate` after parsing: the key, the grace in ms, where the secret goes, the new key's expiry. */
export interface KeysRotateOptions {
  /** the API key to replace */
  id: number;
  /** how long the old key keeps working, ms (0: revoked at once) */
  grace: number;
  /** write the new secret to this file (mode 0600, atomically) instead of stdout */
  keyFile?: string;
  /** the new key's expireDate (RFC 3339); none unless given */
  expires?: string;
}

/** `--grace` unless given: 7 days, in ms. */
const DEFAULT_GRACE_MS = 7 * DAY;

/** Longest grace: 366 days (a rotation that leaves the old key a year or more is a typo more often than a plan). */
const GRACE_MAX_MS = 366 * DAY;

/**
 * `--grace`: `0` (revoke at once) or a duration with its unit (src/time.ts: `90s`, `30m`,
 * `24h`, `1.5d`, `2w`; a bare number is refused, `7` is not 7 days) → ms, at most 366d. Throws InvalidArgumentError with the allowed forms (commander names the flag; exit 2).
 */
function parseGrace(value: string): number {
  const ms = value.trim() === '0' ? 0 : parseDurationMs(value);
  if (ms === undefined || ms > GRACE_MAX_MS) {
    throw new InvalidArgumentError(
      `expected 0 (revoke the old key at once) or a duration up to ${formatDuration(GRACE_MAX_MS)} such as 90s, 30m, 24h, 7d, 2w.`,
    );
  }
  return ms;
}

/**
 * A trailing `-YYYY-MM-DD` left by an earlier rotation, with the `-N` a second rotation the
 * same day adds, replaced rather than stacked (`ci-2026-01-05-2026-04-05`).
 */
const DATE_SUFFIX = /-\d{4}-\d{2}-\d{2}(?:-\d+)?$/;

/**
 * The new key's name (docs/state.md: a state file names keys by name, so it must be unique):
 * the old name with its date suffix (if any) replaced by `now`'s UTC date, `key-ID-DATE` for
 * an unnamed key; when another key already has that name (`taken`), the first free
 * `NAME-DATE-2`, `-3`, … (a second rotation the same day).
 */
export function rotatedName(old: Pick<ApiKey, 'id' | 'name'>, now: Date, taken: ReadonlySet<string> = new Set()): string {
  const date = now.toISOString().slice(0, 10);
  const base = `${old.name.replace(DATE_SUFFIX, '') || `key-${old.id}`}-${date}`;
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}-${n}`)) n++;
  return `${base}-${n}`;
}

/** The names of the API keys that start with `prefix` (`Name.StartsWith`, contract §5), every page: the names a rotation must not reuse. */
async function namesStartingWith(client: ApiClient, prefix: string): Promise<Set<string>> {
  const names = new Set<string>();
  const take = 1000;
  for (let skip = 0; ; skip += take) {
    const body = await listApiKeys(client, { filter: `Name.StartsWith(${filterString(prefix)})`, sort: 'Id asc', take, skip });
    const page = Array.isArray(body.apiKeys) ? body.apiKeys : [];
    for (const k of page) if (typeof k.name === 'string') names.add(k.name);
    if (page.length < take) return names;
  }
}

/** The old key's change: `expireDate` now + grace unless it already expires sooner (a rotation never extends a key's life); grace 0 also sets `revoked`. */
export function oldKeyChange(old: Pick<ApiKey, 'id' | 'expireDate' | 'revoked'>, now: Date, graceMs: number): ApiKeyInput & { id: number } {
  const change: ApiKeyInput & { id: number } = { id: old.id };
  const until = now.getTime() + graceMs;
  if (!old.expireDate || Date.parse(old.expireDate) > until) change.expireDate = new Date(until).toISOString();
  if (graceMs === 0 && !old.revoked) change.revoked = true;
  return change;
}

/** The key with `id` (GET /v1/api-keys?filter=Id = N, contract §4, §5), its defaults filled in; NotFoundError (exit 4) when there is none. */
async function findKey(client: ApiClient, id: number): Promise<ApiKey> {
  const body = await listApiKeys(client, { filter: `Id = ${id}`, take: 1 });
  const rec = (Array.isArray(body.apiKeys) ? body.apiKeys : [])[0];
  if (!rec) throw new NotFoundError(`no API key with id ${id}`);
  return normalizeRecord(rec as unknown as Record<string, unknown>, API_KEY_LIST.types) as unknown as ApiKey;
}

/** The directory of `--key-file` must exist and be writable, and the path must not be a directory: checked before any key is made. UsageError otherwise. */
async function checkKeyFile(path: string): Promise<void> {
  const st = await stat(path).catch(() => undefined);
  if (st?.isDirectory()) throw new UsageError(`--key-file ${path} is a directory; give a file path`);
  try {
    await access(dirname(path), constants.W_OK);
  } catch (e) {
    throw new UsageError(`--key-file ${path}: its directory can't be written (${describeFsError(e)})`);
  }
}

/** What `-o json` prints: the new key (secret or key file) and the old key's state after the run. */
interface RotateResult {
  newKey: { id: number; name: string; key?: string; keyFile?: string };
  oldKey: { id: number; expireDate: string | null; revoked: boolean; updated: boolean };
}

/**
 * `lic keys rotate ID`: reads the key (404-like NotFoundError, exit 4, when absent), POSTs
 * a new key with its owner, permissions and description (named rotatedName: the date, and
 * `-2`, `-3`… when another key has that name, looked up with `Name.StartsWith`),
 * prints the secret once (or writes it to `--key-file`, mode 0600, via write-file-atomic),
 * then PUTs the old key's `expireDate` = now + grace (grace 0: also `revoked`). When the
 * PUT fails, the new key is still printed, stderr says what state each key is in and the
 * command that finishes the job, and the PUT's error is rethrown (its exit code: 1, 3 or 5).
 * `--dry-run` prints both requests (one JSON plan per line) and sends neither.
 */
async function runKeysRotate(opts: KeysRotateOptions, rt: Runtime): Promise<void> {
  checkExpiry(opts.expires, rt.ctx.now(), false);
  const keyFile = opts.keyFile === undefined ? undefined : resolve(opts.keyFile);
  if (keyFile) await checkKeyFile(keyFile);
  const client = await rt.client();
  const old = await findKey(client, opts.id);
  const now = rt.ctx.now();
  const input: ApiKeyInput = {
    name: rotatedName(old, now, await namesStartingWith(client, rotatedName(old, now))),
    ownerId: old.ownerId || undefined,
    permissions: old.permissions,
    description: old.description || undefined,
    expireDate: opts.expires,
  };
  const change = oldKeyChange(old, now, opts.grace);
  const changes = Object.keys(change).length > 1;

  if (rt.globals.dryRun) {
    // loaded here: the dry-run module brings the HTTP client, which registering the verb must not load
    const { describeRequest } = await import('../../client/dry-run.js');
    const plans: DryRunPlan[] = [describeRequest(client, 'POST', '/v1/api-keys', { body: { apiKey: input } })];
    if (changes) plans.push(describeRequest(client, 'PUT', '/v1/api-keys', { body: { apiKey: change } }));
    for (const p of plans) rt.out.json(p);
    return;
  }

  const created = await createApiKey(client, input);
  const newKey: RotateResult['newKey'] = { id: created.apiKeyId, name: input.name! };
  if (keyFile) {
    try {
      await writeFileAtomic(keyFile, `${created.key}\n`, { mode: 0o600 });
    } catch (e) {
      // the secret exists nowhere else: take the new key back rather than leave one nobody can use
      const undo = await deleteApiKey(client, created.apiKeyId).then(
        () => `deleted the new API key ${created.apiKeyId} again`,
        () =>
          `the new API key ${created.apiKeyId} is left without a usable secret: delete it with \`lic keys delete ${created.apiKeyId} --yes\``,
      );
      throw new Error(`could not write --key-file ${keyFile} (${describeFsError(e)}); ${undo}; API key ${old.id} is unchanged`, {
        cause: e,
      });
    }
    newKey.keyFile = keyFile;
  } else newKey.key = created.key;

  const finish = opts.grace === 0 ? `lic keys update ${old.id} --revoke` : `lic keys update ${old.id} --expires ${change.expireDate ?? ''}`;
  let failure: Error | undefined;
  if (changes) {
    try {
      await updateApiKey(client, change);
    } catch (e) {
      failure = e instanceof Error ? e : new Error(String(e));
    }
  }
  const updated = changes && failure === undefined;
  const result: RotateResult = {
    newKey,
    oldKey: {
      id: old.id,
      expireDate: updated && change.expireDate ? change.expireDate : old.expireDate,
      revoked: updated && change.revoked ? true : old.revoked,
      updated,
    },
  };
  const secretField: [string, unknown] = newKey.keyFile ? ['keyFile', newKey.keyFile] : ['key', newKey.key];
  const flat: [string, unknown][] = [
    ['newKeyId', newKey.id],
    ['newKeyName', newKey.name],
    secretField,
    ['oldKeyId', old.id],
    ['oldKeyExpireDate', result.oldKey.expireDate],
    ['oldKeyRevoked', result.oldKey.revoked],
  ];
  await rt.out.record(result, flat, { record: result, fields: flat });
  if (!newKey.keyFile) rt.out.warn('Store this API key now: it will not be shown again.');

  if (failure !== undefined) {
    // an answer from the service means the PUT was refused; no answer means it may have gone through
    const state =
      failure instanceof ApiError
        ? `API key ${old.id} is unchanged: ${describeState(old, now)}`
        : `API key ${old.id} may or may not have been changed (no reply); check it with \`lic keys list --where 'Id = ${old.id}'\``;
    rt.out.warn(
      `lic: rotation incomplete: API key ${newKey.id} (${newKey.name}) was created and works${newKey.keyFile ? ` (its secret is in ${newKey.keyFile})` : ''}; ${state}.\nlic: finish with: ${finish}`,
    );
    throw failure;
  }
  await warnIfOwnKey(rt, old);
  if (!changes) rt.out.note(`API key ${old.id} already ${describeState(old, now)}; left unchanged.`);
  else if (opts.grace === 0) rt.out.note(`API key ${old.id} is revoked.`);
  else rt.out.note(`API key ${old.id} expires at ${change.expireDate}; move its users to API key ${newKey.id} before then.`);
}

/** `is revoked` / `expires at T` / `expired at T` / `never expires`, for messages. */
function describeState(k: Pick<ApiKey, 'expireDate' | 'revoked'>, now: Date): string {
  if (k.revoked) return 'is revoked';
  if (!k.expireDate) return 'never expires';
  return `${Date.parse(k.expireDate) <= now.getTime() ? 'expired' : 'expires'} at ${k.expireDate}`;
}

/** A note when the rotated key has the prefix of the key this command runs with (the profile's or LIC_API_KEY). */
async function warnIfOwnKey(rt: Runtime, old: ApiKey): Promise<void> {
  const t = await rt.target();
  const key = await rt.apiKey();
  if (key && old.keyPrefix && key.startsWith(old.keyPrefix)) {
    const where = rt.ctx.env.LIC_API_KEY ? 'LIC_API_KEY' : `profile "${t.profileName}"`;
    rt.out.warn(
      `lic: API key ${old.id} looks like the key lic itself uses (${where}); put the new key there before the old one stops working.`,
    );
  }
}

/** Declares `keys rotate ID [--grace 7d] [--key-file PATH]` with --dry-run; `run` is the seam for option tests. */
export function registerKeysRotate(parent: Command, deps: CommandDeps, run = runKeysRotate): void {
  const cmd = outputFormats(parent.command('rotate'))
    .description("Replace an API key: create a new one with the old one's owner, permissions and description, then expire the old one")
    .argument('<id>', 'API key id to replace', parseId)
    .option(
      '--grace <duration>',
      'how long the old key keeps working: 0 (revoke it at once) or 90s, 30m, 24h, 7d, 2w (default 7d)',
      parseGrace,
    )
    .option('--key-file <path>', 'write the new key to this file (mode 0600, replaced atomically) instead of printing it')
    .option('--expires <time>', "the new key's expiry: RFC 3339, a date, or a time ahead such as 90d (default: none)", (v) =>
      parseExpiry(v, deps.ctx.now()),
    );
  addDryRunOption(cmd)
    .addHelpText(
      'after',
      '\nIf expiring the old key fails, the new key is still printed (or written), stderr says what state each key is in and the `lic keys update` command that finishes the job, and the exit code is that of the failure (1 service error, 3 not allowed, 5 network).\n\nExamples:\n  lic keys rotate 12\n  lic keys rotate 12 --grace 24h --expires 90d --key-file ~/.config/ci/lic-key\n  lic keys rotate 12 --grace 0                   # revoke the old key at once\n  lic keys rotate 12 -o json | jq -r .newKey.key\n  lic keys rotate 12 --dry-run                   # prints both requests, sends neither',
    )
    .action(async (id: number, o: { grace?: number; keyFile?: string; expires?: string }, c: Command) =>
      run({ id, grace: o.grace ?? DEFAULT_GRACE_MS, keyFile: o.keyFile, expires: o.expires }, deps.runtimeOf(c)),
    );
}
