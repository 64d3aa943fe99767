import { access, constants, lstat, mkdir, open, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { createApiKey, deleteApiKey, listApiKeys, updateApiKey } from '../../client/endpoints/api-keys.js';
import { createAssembly, deleteAssembly, updateAssembly } from '../../client/endpoints/assemblies.js';
import { createResource, deleteResource, updateResource } from '../../client/endpoints/resources.js';
import type { ApiClient } from '../../client/request.js';
import { ApiError } from '../../client/errors.js';
import { messageFor, UsageError } from '../../cli/errors.js';
import { describeFsError } from '../../cli/files.js';
import { equalsClause, listRecords } from '../../cli/list/index.js';
import type { CommandDeps } from '../../cli/deps.js';
import { DRY_RUN_HELP } from '../../cli/dry-run-option.js';
import type { Runtime } from '../../cli/runtime.js';
import { needsPassword } from '../resources/bundle.js';
import { readData, readStateFile, type DesiredState } from './file.js';
import { collectAfterRecordData } from '../../cli/memory.js';
import { describeItem, makePlan, printPlan, type Plan, type Step } from './plan.js';
import { outputFormats } from '../../cli/parse.js';

interface ApplyOptions {
  /** the state file, or `-` for stdin */
  file: string;
  /** delete what the file lacks (of the nouns it holds) */
  prune?: boolean;
  /** do not ask before deleting (required off a terminal with --prune) */
  yes?: boolean;
  /** write each new API key's secret to DIR/NAME.key (0600) instead of printing it */
  keyDir?: string;
}

/** A new API key made by apply: its secret printed once, or the file it was written to. */
interface NewKey {
  name: string;
  id: number;
  key?: string;
  keyFile?: string;
}

/** The wire wrapper and path of each noun (contract §10). */
const WIRE = {
  resources: { wrapper: 'resource', path: '/v1/resources' },
  assemblies: { wrapper: 'assembly', path: '/v1/assemblies' },
  keys: { wrapper: 'apiKey', path: '/v1/api-keys' },
} as const;

/** A file name for a key's secret: its name with anything but `A-Za-z0-9._-` as `_`, `.key` added. */
const keyFileName = (name: string) => `${name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'key'}.key`;

/**
 * The marker apply leaves in --key-dir while an API key is being created (`NAME.key.pending`,
 * empty): written before the POST, removed once the secret is in `NAME.key`. A marker
 * without its key file means the create's reply was lost: a re-run rotates that key.
 */
const PENDING = '.pending';

/** Whether `path` exists as anything (a file, a directory, a link, even a dangling one): lstat, never following. */
const exists = (path: string) =>
  lstat(path).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return false;
      throw e;
    },
  );

/** Flags that create a file only when nothing is there, never through a symbolic link (O_CREAT|O_EXCL|O_NOFOLLOW). */
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes `text` to `path`, a file that must not exist (NEW_FILE, mode 0600): never
 * follows a link, never overwrites. What was written is removed again when the write fails.
 */
async function writeNewFile(path: string, text: string): Promise<void> {
  const fh = await open(path, NEW_FILE, 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
    await fh.close();
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw e;
  }
}

/**
 * The names of the file's keys whose secret was lost by an earlier apply into `keyDir`: a
 * PENDING marker, no key file. A marker beside its key file is stale (an apply stopped
 * between writing the secret and removing the marker): unless `o.dryRun`, it is removed
 * here, so moving the key file away later never makes a re-run rotate a working key.
 */
async function lostSecrets(want: DesiredState, keyDir: string | undefined, o: { dryRun: boolean }): Promise<Set<string>> {
  const lost = new Set<string>();
  if (!keyDir) return lost;
  for (const { rec } of want.keys ?? []) {
    const path = join(keyDir, keyFileName(rec.name));
    if (!(await exists(path + PENDING))) continue;
    if (!(await exists(path))) lost.add(rec.name);
    else if (!o.dryRun) await unlink(path + PENDING);
  }
  return lost;
}

/**
 * Before anything is sent: no key file apply would write may exist in `keyDir` (a file, a
 * link to one, anything): lic never overwrites a secret nor writes through a link. UsageError
 * naming the file otherwise.
 */
async function checkKeyFiles(plan: Plan, keyDir: string): Promise<void> {
  for (const step of plan.steps) {
    if (step.noun !== 'keys' || (step.action !== 'create' && step.action !== 'rotate')) continue;
    const path = join(keyDir, keyFileName(step.item));
    let there: boolean;
    try {
      there = await exists(path);
    } catch (e) {
      throw new UsageError(`--key-dir: ${path}: ${describeFsError(e)}`);
    }
    if (there)
      throw new UsageError(
        `--key-dir: ${path} already exists: apply never overwrites a key file nor writes through a link; move it away (the API key ${JSON.stringify(step.item)} would be written there); nothing was sent`,
      );
  }
}

/**
 * `--key-dir` must be a directory that can be written, checked before anything is sent: one
 * that does not exist is made (mode 0700, parents too), or in a dry run left unmade. UsageError naming the
 * flag otherwise (a file, no permission).
 */
async function checkKeyDir(dir: string, dryRun: boolean): Promise<void> {
  try {
    const st = await stat(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
      return undefined;
    });
    // a dry run makes nothing: a folder it would make is fine
    if (!st && dryRun) return;
    if (!st) await mkdir(dir, { recursive: true, mode: 0o700 });
    else if (!st.isDirectory()) throw new UsageError(`--key-dir ${dir}: not a directory`);
    await access(dir, constants.W_OK);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`--key-dir ${dir}: ${describeFsError(e)}`);
  }
}

/**
 * The body of `step` as sent (contract §4, §7): the fields that change, `id` for an update,
 * resource data read now (one resource at a time), an assembly's mapping resource as its id
 * (`mappingId`: undefined when not yet known, in a dry run). A create of an API key never
 * carries `revoked` (the insert refuses it).
 */
async function bodyOf(step: Step, mappingId: number | string | undefined): Promise<Record<string, unknown>> {
  const { revoked: _revoked, ...fields } = step.send;
  const inner: Record<string, unknown> = step.action === 'update' ? { id: step.id, ...step.send } : fields;
  if (step.data) inner.data = (await readData(step.data)).toString('base64');
  if (step.mappingFile !== undefined) inner.mappingFileId = step.mappingFile === '' ? 0 : mappingId;
  return { [WIRE[step.noun].wrapper]: inner };
}

/**
 * `lic apply -f FILE [--prune] [--key-dir DIR]`: makes the service match the state file
 * (docs/state.md). The file is read and checked whole first (exit 2 naming line and field,
 * nothing sent), then the plan is made (plan.ts: the same as `lic diff`) and run step by
 * step in its safe order, each sending only the fields that differ; a plan without steps
 * sends nothing. With deletes (--prune) it asks first on a terminal, else needs --yes.
 * New API keys' secrets go to `--key-dir` (new 0600 files, never over a file or through a
 * link, checked before anything is sent; a key whose file can't be written is deleted
 * again) or stdout, once. A change that could lock out the key lic runs with is confirmed
 * first (--yes); a create whose reply was lost is named (lostReply) and rotated by a re-run. The first failure stops the run: stderr
 * says what was done and what was not (a second run finishes the job), secrets already
 * made are still printed, and the failure's own exit code follows. `--dry-run` prints each
 * request of the plan (redacted) and sends none.
 */
async function runApply(opts: ApplyOptions, rt: Runtime): Promise<void> {
  const want = await readStateFile(opts.file, rt.ctx);
  const keyDir = opts.keyDir === undefined ? undefined : resolve(opts.keyDir);
  if (keyDir) await checkKeyDir(keyDir, rt.globals.dryRun === true);
  const client = await rt.client();
  const plan = await makePlan(client, want, {
    prune: opts.prune === true,
    ownKey: await rt.apiKey(),
    now: rt.ctx.now(),
    lostSecrets: await lostSecrets(want, keyDir, { dryRun: rt.globals.dryRun === true }),
  });
  if (keyDir) await checkKeyFiles(plan, keyDir);
  if (rt.globals.dryRun) return dryRun(rt, client, plan, want.source);
  if (plan.steps.length === 0) return printPlan(rt, plan, want.source, { dryRun: false, newKeys: [] });
  const deletes = plan.steps.filter((s) => s.action === 'delete');
  if (deletes.length) {
    const names = deletes.slice(0, 5).map(describeItem).join(', ') + (deletes.length > 5 ? ` and ${deletes.length - 5} more` : '');
    await rt.confirm(`delete ${deletes.length} record(s) the state file lacks (${names})`, opts.yes);
  }
  for (const s of plan.steps.filter((s) => s.lockout)) {
    await rt.confirm(`update ${describeItem(s)}, the key lic runs with (it ${s.lockout})`, opts.yes);
  }
  const newKeys: NewKey[] = [];
  const done: Step[] = [];
  for (const step of plan.steps) {
    try {
      const sent = await runStep(client, step, plan, newKeys, keyDir);
      done.push(step);
      collectAfterRecordData(sent);
      if (step.noun === 'resources' && step.action !== 'delete' && step.data && needsPassword(step.send as { dataFormat: string })) {
        rt.out.warn(
          `lic: resource ${step.item} has new data and no password from the file: set it with \`lic resources update ${step.id ?? 'ID'} --password-prompt\``,
        );
      }
    } catch (e) {
      const left = plan.steps.slice(done.length);
      const lost = e instanceof LostReplyError;
      if (lost) done.push(step);
      rt.out.warn(
        `lic: apply stopped at ${step.action} ${describeItem(step)}: ${messageFor(e)}\n` +
          `lic: done (${done.length}): ${listSteps(done, 5) || 'nothing'}\n` +
          `lic: not done (${left.length - (lost ? 1 : 0)}): ${listSteps(lost ? left.slice(1) : left) || 'nothing'}\n` +
          `lic: fix the cause and run lic apply again: it does only what is left`,
      );
      if (newKeys.length) await printNewKeys(rt, newKeys);
      throw e;
    }
  }
  await printPlan(rt, plan, want.source, { dryRun: false, newKeys });
  if (rt.out.opts.format !== 'json') await printNewKeys(rt, newKeys);
}

/** Sends one step; a created record's id goes into the step (and, for a resource, into plan.resourceIds). Returns the bytes of resource data it sent (0 for none). */
async function runStep(client: ApiClient, step: Step, plan: Plan, newKeys: NewKey[], keyDir: string | undefined): Promise<number> {
  const mappingId = step.mappingFile ? plan.resourceIds.get(step.mappingFile) : undefined;
  if (step.action === 'delete') {
    const remove = { resources: deleteResource, assemblies: deleteAssembly, keys: deleteApiKey }[step.noun];
    await remove(client, step.id!);
    return 0;
  }
  const body = await bodyOf(step, mappingId);
  const inner = body[WIRE[step.noun].wrapper] as never;
  const sent = typeof (inner as { data?: unknown }).data === 'string' ? ((inner as { data: string }).data.length * 3) / 4 : 0;
  if (step.action === 'update') {
    const update = { resources: updateResource, assemblies: updateAssembly, keys: updateApiKey }[step.noun];
    await update(client, inner);
    return sent;
  }
  if (step.noun === 'resources') {
    step.id = (await createResource(client, inner)).resourceId;
    plan.resourceIds.set(step.item, step.id);
  } else if (step.noun === 'assemblies') step.id = (await createAssembly(client, inner)).assemblyId;
  else {
    // a rotation (docs/state.md): the key whose secret nobody has goes, then it is created again
    if (step.action === 'rotate') await deleteApiKey(client, step.id!);
    const path = keyDir ? join(keyDir, keyFileName(step.item)) : undefined;
    const file = path && (newKeys.some((n) => n.keyFile === path) ? undefined : path);
    if (file) await markPending(file);
    let created: Awaited<ReturnType<typeof createApiKey>>;
    try {
      created = await createApiKey(client, inner);
    } catch (e) {
      throw await lostReply(client, step, e, file);
    }
    step.id = created.apiKeyId;
    const k: NewKey = { name: step.item, id: created.apiKeyId };
    if (keyDir) {
      const to = file ?? join(keyDir, keyFileName(`${step.item}-${created.apiKeyId}`));
      try {
        await writeNewFile(to, `${created.key}\n`);
      } catch (e) {
        // the secret exists nowhere else: take the key back rather than leave one nobody can use
        await deleteApiKey(client, created.apiKeyId).catch(() => undefined);
        if (file) await unlink(file + PENDING).catch(() => undefined);
        const why = (e as NodeJS.ErrnoException).code === 'EEXIST' ? 'it exists now' : describeFsError(e);
        throw new Error(`could not write ${to} (${why}); the new API key was deleted again`, { cause: e });
      }
      if (file) await unlink(file + PENDING).catch(() => undefined);
      k.keyFile = to;
    } else k.key = created.key;
    newKeys.push(k);
    if (step.send.revoked === true) await updateApiKey(client, { id: created.apiKeyId, revoked: true });
  }
  return sent;
}

/** Writes the PENDING marker of key file `path` (empty, 0600, never through a link); one left by an earlier run is kept. */
async function markPending(path: string): Promise<void> {
  try {
    await writeNewFile(path + PENDING, '');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new UsageError(`--key-dir: ${path + PENDING}: ${describeFsError(e)}`);
    if (!(await lstat(path + PENDING)).isFile()) throw new UsageError(`--key-dir: ${path + PENDING} is not a file`);
  }
}

/** A create of an API key whose reply was lost: the key exists on the service, its secret nowhere. */
class LostReplyError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LostReplyError';
  }
}

/**
 * After a failed create of an API key: when the service has a key of that name now (the
 * POST was done but its reply lost: a 5xx, a cut connection), a LostReplyError naming it,
 * its id and what a re-run does (exit 1); otherwise `e` itself. Where the key was certainly
 * not made (a refusal, or no key of that name), the PENDING marker of `file` goes too: a
 * re-run simply creates it; where that can't be told (the look-up failed) the marker stays.
 */
async function lostReply(client: ApiClient, step: Step, e: unknown, file: string | undefined): Promise<unknown> {
  const notMade = async () => {
    if (file) await unlink(file + PENDING).catch(() => undefined);
    return e;
  };
  if (e instanceof UsageError || (e instanceof ApiError && e.status < 500)) return notMade();
  let id: number | undefined;
  try {
    const body = await listApiKeys(client, { filter: equalsClause('Name', step.item), take: 2 });
    id = listRecords<{ id: number; name: string }>(body, 'apiKeys', '/v1/api-keys').find((k) => k.name === step.item)?.id;
  } catch {
    return e;
  }
  if (id === undefined) return notMade();
  const again = file
    ? `run lic apply again with the same --key-dir: it rotates the key (deletes it and creates it again; ${file}${PENDING} marks it)`
    : `nobody has its secret: delete it (lic keys delete ${id}) and run lic apply again, or give --key-dir next time`;
  return new LostReplyError(
    `the API key ${JSON.stringify(step.item)} was created (id ${id}) but the reply carrying its secret was lost (${messageFor(e)}); ${again}`,
    { cause: e },
  );
}

/** The first `most` steps as `action item`, comma-separated, then how many more (all when `most` is undefined). */
function listSteps(steps: readonly Step[], most = Infinity): string {
  const named = steps.slice(0, most).map((s) => `${s.action} ${describeItem(s)}`);
  return named.join(', ') + (steps.length > most ? ` and ${steps.length - most} more` : '');
}

/** The new keys on stdout (`name<TAB>key` or `name<TAB>file`), with the reminder that a secret is shown once. */
async function printNewKeys(rt: Runtime, keys: NewKey[]): Promise<void> {
  if (!keys.length) return;
  if (rt.out.opts.format === 'json') rt.out.json({ newKeys: keys });
  else
    await rt.out.list(keys, keys, [
      { header: 'NEW KEY', kind: 'name', get: (k) => k.name },
      { header: 'ID', kind: 'id', get: (k) => k.id },
      { header: k0(keys), kind: 'text', get: (k) => k.key ?? k.keyFile },
    ]);
  if (keys.some((k) => k.key)) rt.out.warn('Store these API keys now: they will not be shown again.');
}
const k0 = (keys: NewKey[]) => (keys.some((k) => k.key) ? 'KEY' : 'KEY FILE');

/** `--dry-run`: each request of the plan as JSON, one a line (redacted: src/client/dry-run.ts), then the summary on stderr. */
async function dryRun(rt: Runtime, client: ApiClient, plan: Plan, source: string): Promise<void> {
  const { describeRequest } = await import('../../client/dry-run.js');
  for (const step of plan.steps) {
    const path = WIRE[step.noun].path;
    if (step.action === 'delete') {
      rt.out.json(describeRequest(client, 'DELETE', `${path}/${step.id}`));
      continue;
    }
    if (step.action === 'rotate') rt.out.json(describeRequest(client, 'DELETE', `${path}/${step.id}`));
    const known = step.mappingFile ? plan.resourceIds.get(step.mappingFile) : undefined;
    const body = await bodyOf(step, known ?? (step.mappingFile ? `(id of resource ${step.mappingFile}, once created)` : undefined));
    rt.out.json(describeRequest(client, step.action === 'update' ? 'PUT' : 'POST', path, { body }));
    if (step.action !== 'update' && step.noun === 'keys' && step.send.revoked === true)
      rt.out.json(describeRequest(client, 'PUT', path, { body: { apiKey: { id: '(id of the new key)', revoked: true } } }));
  }
  for (const n of plan.notes) rt.out.info(n);
  rt.out.info(
    plan.steps.length ? `Dry run: nothing was sent; ${plan.steps.length} request(s) above.` : `No changes: the service matches ${source}.`,
  );
}

/** Declares top-level `apply -f FILE [--prune] [--yes] [--key-dir DIR] [--dry-run]`. */
export function registerApply(program: Command, deps: CommandDeps, run = runApply): void {
  outputFormats(program.command('apply'))
    .description(
      'Make the service match a state file: create, update only the fields that differ and, with --prune, delete (docs/state.md)',
    )
    .requiredOption('-f, --file <file>', 'the state file (YAML or JSON, from `lic state export`), or - for stdin')
    .option('--prune', 'also delete the records the file lacks, of the sections it has (never the key lic runs with)')
    .option('-y, --yes', 'do not ask before deleting or before changing the key lic runs with (needed for either off a terminal)')
    .option(
      '--key-dir <dir>',
      "write each new API key's secret to DIR/NAME.key, a new file of mode 0600 (never over an existing file or through a link; DIR made 0700 when missing) instead of printing it",
    )
    .option('--dry-run', DRY_RUN_HELP)
    .addHelpText(
      'after',
      '\nOrder: resources, then assemblies, then API keys; deletes last, in the reverse order. A failure stops the run and says what was done; running it again finishes the job.\n\nExamples:\n' +
        '  lic apply -f licensing.yaml\n' +
        '  lic apply -f licensing.yaml --dry-run\n' +
        '  lic apply -f licensing.yaml --prune --yes --key-dir ~/.config/lic/keys',
    )
    .action(async (o: Omit<ApplyOptions, 'file'> & { file: string; dryRun?: boolean }, c: Command) =>
      run({ file: o.file, prune: o.prune, yes: o.yes, keyDir: o.keyDir }, deps.runtimeOf(c)),
    );
}
