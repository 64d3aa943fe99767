/**
 * The plan of `lic diff` and `lic apply` (docs/state.md): what the service must do to
 * match a state file — the records to create, the fields to update (only those that
 * differ) and, with --prune, the records to delete — in a safe order: creates and updates
 * of resources, then assemblies (which name a mapping resource), then API keys; deletes
 * afterwards in the reverse order. One module, so what diff shows is what apply sends.
 */
import type { ApiClient } from '../../client/request.js';
import { UsageError } from '../../cli/errors.js';
import { permissionLetters } from '../../cli/parse.js';
import type { Runtime } from '../../cli/runtime.js';
import {
  fingerprint,
  readService,
  resourceData,
  unnamedNote,
  type ServiceAssembly,
  type ServiceKey,
  type ServiceState,
} from './current.js';
import {
  assemblyIdentity,
  assemblyKey,
  matchKey,
  readData,
  STATE_NOUNS,
  type DataRef,
  type DesiredState,
  type KeyState,
  type StateNoun,
} from './file.js';
import { collectAfterRecordData } from '../../cli/memory.js';

/** One field that changes: its value on the service (null for a create) and in the file. Resource data shows as a fingerprint. */
interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** One write of the plan. */
export interface Step {
  /** `rotate`: an API key whose secret was lost (its reply never came) deleted and created again (docs/state.md) */
  action: 'create' | 'update' | 'delete' | 'rotate';
  noun: StateNoun;
  /** the record's identity (resource code, API key name, assembly display name) */
  item: string;
  /** the record's id on the service (update, delete) */
  id?: number;
  /** the line of the state file that declares it (create, update) */
  line?: number;
  /** the fields that change (create: those not at their default) */
  changes: FieldChange[];
  /** the fields sent, wire names, without `data` and `mappingFileId` (resolved when sent) */
  send: Record<string, unknown>;
  /** resource data to send, read when sent */
  data?: DataRef;
  /** an assembly's mapping resource, by code ("" for none), when mappingFileId is sent */
  mappingFile?: string;
  /** how this update could lock lic out: it changes the key lic runs with ("revokes it", …); such a step runs last, after a confirmation */
  lockout?: string;
}

/** The plan: the steps in the order apply runs them, and notes (records left alone, and why). */
export interface Plan {
  steps: Step[];
  notes: string[];
  /** resource code → id on the service, for the mappingFileId of assemblies (apply adds the resources it creates) */
  resourceIds: Map<string, number>;
}

const NOUN_WORD: Record<StateNoun, string> = { resources: 'resource', assemblies: 'assembly', keys: 'API key' };

/** A record of `noun` as a message names it: `API key "ci"`. */
export const describeItem = (s: Pick<Step, 'noun' | 'item'>): string => `${NOUN_WORD[s.noun]} "${s.item}"`;

/** The fields of each noun that are compared, in the order a plan lists them. */
const COMPARED = {
  resources: ['name', 'type', 'description', 'source', 'dataFormat'],
  assemblies: ['mappingFile', 'debugSymbolsKey'],
  keys: ['ownerId', 'permissions', 'description', 'expireDate', 'revoked'],
} as const;

/** A field's default (contract §1: what a service that strips defaults leaves out). */
const DEFAULTS: Record<string, unknown> = { description: '', source: '', type: '', dataFormat: '', revoked: false, expireDate: null };

/**
 * Builds the plan: reads the nouns the file holds from the service (readService; exit 2
 * on identities shared on the service), compares each record field by field, resource
 * data as bytes (each fetched and read alone), and with `prune` adds a delete for each
 * record of those nouns that the file lacks — but never for the API key with the prefix
 * of `ownKey` (the key lic runs with), nor for a resource without a code or an API key
 * without a name (a state file can't name them), each named in `notes`. An update of that
 * key which could lock lic out (lockoutOf: revoke, expiry within 24 hours of `now`,
 * permission bits taken away, another owner) is marked `lockout`, named in `notes` and put
 * last. A key named in `lostSecrets` (apply: its secret file was never written) is a
 * `rotate`: deleted and created again. Throws UsageError (exit 2) for a mappingFile that
 * names no resource of the file or the service.
 */
export async function makePlan(
  client: ApiClient,
  want: DesiredState,
  o: { prune: boolean; ownKey?: string; now?: Date; lostSecrets?: ReadonlySet<string> },
): Promise<Plan> {
  const nouns = STATE_NOUNS.filter((n) => want[n] !== undefined);
  const have = await readService(client, nouns);
  const steps: Step[] = [];
  const notes: string[] = [];
  if (want.resources) await planResources(client, want, have, steps);
  if (want.assemblies) planAssemblies(want, have, steps);
  if (want.keys) planKeys(want, have, steps, o);
  if (o.prune) {
    for (const noun of [...nouns].reverse()) {
      const keep = new Set<string>((want[noun] ?? []).map((w) => matchKey(noun, w.rec)));
      for (const [k, rec] of (have[noun] ?? new Map()) as Map<string, { id: number }>) {
        if (keep.has(k)) continue;
        const item = noun === 'assemblies' ? assemblyIdentity(rec as ServiceAssembly) : k;
        const prefix = noun === 'keys' ? (rec as ServiceKey).keyPrefix : '';
        if (prefix && o.ownKey?.startsWith(prefix)) {
          notes.push(`lic: not deleting API key "${item}" (id ${rec.id}): it is the key lic runs with; delete it with another key`);
          continue;
        }
        steps.push({ action: 'delete', noun, item, id: rec.id, changes: [], send: {} });
      }
    }
    if (want.keys && have.unnamed.length) notes.push(unnamedNote('left alone', have.unnamed));
    if (want.resources && have.uncoded.length) {
      notes.push(
        `lic: left alone ${have.uncoded.length} resource(s) without a code, which a state file can't name: ${have.uncoded.map((r) => `${r.id} "${r.name}"`).join(', ')}`,
      );
    }
  }
  const resourceIds = new Map<string, number>();
  for (const [id, code] of have.resourceCode) if (code !== '') resourceIds.set(code, id);
  // a change that could lock lic out goes last: whatever else the plan does is done by then
  const risky = steps.filter((s) => s.lockout);
  for (const s of risky)
    notes.push(
      `lic: warning: the update of ${describeItem(s)} (id ${s.id}) changes the key lic runs with: it ${s.lockout}, which may leave lic without access; apply makes it last and asks first (off a terminal it needs --yes)`,
    );
  for (const s of steps.filter((s) => s.action === 'rotate'))
    notes.push(
      `lic: ${describeItem(s)} (id ${s.id}) was created by an earlier apply whose reply was lost, so its secret was never written: apply deletes it and creates it again (a rotation)`,
    );
  return { steps: [...steps.filter((s) => !s.lockout), ...risky], notes, resourceIds };
}

/** A create's changes: every compared field not at its default, from null. */
function createChanges(fields: readonly string[], rec: Record<string, unknown>): FieldChange[] {
  return fields.filter((f) => rec[f] !== (DEFAULTS[f] ?? '')).map((f) => ({ field: f, from: null, to: rec[f] }));
}

async function planResources(client: ApiClient, want: DesiredState, have: ServiceState, steps: Step[]): Promise<void> {
  // the bytes compared for the record before: let go before the next one is read
  let compared = 0;
  for (const { line, rec } of want.resources!) {
    collectAfterRecordData(compared);
    const cur = have.resources!.get(rec.code);
    const fields = COMPARED.resources;
    const wantRec = rec as unknown as Record<string, unknown>;
    if (!cur) {
      const bytes = await readData(rec.data);
      compared = bytes.length;
      const changes = createChanges(['code', ...fields], wantRec);
      if (bytes.length) changes.push({ field: 'data', from: null, to: fingerprint(bytes) });
      const send: Record<string, unknown> = {};
      for (const f of ['code', ...fields]) send[f] = wantRec[f];
      steps.push({ action: 'create', noun: 'resources', item: rec.code, line, changes, send, data: rec.data });
      continue;
    }
    const curRec = cur as unknown as Record<string, unknown>;
    const changes: FieldChange[] = fields
      .filter((f) => wantRec[f] !== curRec[f])
      .map((f) => ({ field: f, from: curRec[f], to: wantRec[f] }));
    const send: Record<string, unknown> = {};
    for (const c of changes) send[c.field] = c.to;
    // one resource's bytes at a time, on each side
    const wantBytes = await readData(rec.data);
    const haveBytes = (await resourceData(client, cur.id)) ?? Buffer.alloc(0);
    const dataChanged = !wantBytes.equals(haveBytes);
    compared = wantBytes.length + haveBytes.length;
    if (dataChanged) changes.push({ field: 'data', from: fingerprint(haveBytes), to: fingerprint(wantBytes) });
    if (changes.length)
      steps.push({
        action: 'update',
        noun: 'resources',
        item: rec.code,
        id: cur.id,
        line,
        changes,
        send,
        data: dataChanged ? rec.data : undefined,
      });
  }
}

function planAssemblies(want: DesiredState, have: ServiceState, steps: Step[]): void {
  const fileCodes = new Set((want.resources ?? []).map((r) => r.rec.code));
  const serviceCodes = new Set([...have.resourceCode.values()].filter((c) => c !== ''));
  const bad: string[] = [];
  for (const { line, rec } of want.assemblies!) {
    if (rec.mappingFile !== '' && !fileCodes.has(rec.mappingFile) && !serviceCodes.has(rec.mappingFile))
      bad.push(
        `${want.source}:${line}: assemblies ${rec.name}.mappingFile: no resource with code "${rec.mappingFile}" in the file or on the service`,
      );
  }
  if (bad.length) throw new UsageError(`invalid state file; nothing was sent:\n  ${bad.join('\n  ')}`);
  for (const { line, rec } of want.assemblies!) {
    const item = assemblyIdentity(rec);
    const cur = have.assemblies!.get(assemblyKey(rec));
    if (!cur) {
      const changes = createChanges(['name', 'version', 'culture', 'publicKeyToken', ...COMPARED.assemblies], rec as never);
      const send = {
        name: rec.name,
        version: rec.version,
        culture: rec.culture,
        publicKeyToken: rec.publicKeyToken,
        debugSymbolsKey: rec.debugSymbolsKey,
      };
      steps.push({ action: 'create', noun: 'assemblies', item, line, changes, send, mappingFile: rec.mappingFile });
      continue;
    }
    // a mapping resource that no longer exists (the service lets it be deleted) is none, as export writes it
    const curCode = cur.mappingFileId ? have.resourceCode.get(cur.mappingFileId) : undefined;
    const curMapping = curCode === undefined ? '' : curCode || `#${cur.mappingFileId}`;
    const changes: FieldChange[] = [];
    const send: Record<string, unknown> = {};
    let mappingFile: string | undefined;
    if (curMapping !== rec.mappingFile) {
      changes.push({ field: 'mappingFile', from: curMapping, to: rec.mappingFile });
      mappingFile = rec.mappingFile;
    }
    if (cur.debugSymbolsKey !== rec.debugSymbolsKey) {
      changes.push({ field: 'debugSymbolsKey', from: cur.debugSymbolsKey, to: rec.debugSymbolsKey });
      send.debugSymbolsKey = rec.debugSymbolsKey;
    }
    if (changes.length) steps.push({ action: 'update', noun: 'assemblies', item, id: cur.id, line, changes, send, mappingFile });
  }
}

/** How soon an expiry set on the key lic runs with counts as locking lic out: 24 hours (docs/state.md). */
const SOON_MS = 24 * 60 * 60 * 1000;

/**
 * How an update of the key lic runs with (`cur`, to `want`) could lock lic out, or undefined:
 * it revokes the key, sets an expiry in the past or within SOON_MS of `now`, takes
 * permission bits away, or gives it another owner (whose role may be less).
 */
function lockoutOf(cur: ServiceKey, want: KeyState, now: Date): string | undefined {
  const why: string[] = [];
  if (want.revoked && !cur.revoked) why.push('revokes it');
  if (want.expireDate !== null && want.expireDate !== cur.expireDate && Date.parse(want.expireDate) <= now.getTime() + SOON_MS)
    why.push(`makes it expire at ${want.expireDate}`);
  const lost = cur.permissions & ~want.permissions;
  if (lost) why.push(`takes permission bits ${lost} (${permissionLetters(lost)}) away`);
  if (want.ownerId !== cur.ownerId) why.push(`moves it from owner "${cur.ownerId}" to "${want.ownerId}" (and that owner's role)`);
  return why.length ? why.join(', ') : undefined;
}

function planKeys(
  want: DesiredState,
  have: ServiceState,
  steps: Step[],
  o: { ownKey?: string; now?: Date; lostSecrets?: ReadonlySet<string> },
): void {
  for (const { line, rec } of want.keys!) {
    const cur = have.keys!.get(rec.name);
    const wantRec = rec as unknown as Record<string, unknown>;
    // an insert takes no `revoked` (contract §4): a revoked key is created, then revoked by a PUT
    const createSend = (): Record<string, unknown> => {
      const send: Record<string, unknown> = {
        name: rec.name,
        ownerId: rec.ownerId,
        permissions: rec.permissions,
        description: rec.description,
      };
      if (rec.expireDate) send.expireDate = rec.expireDate;
      if (rec.revoked) send.revoked = true;
      return send;
    };
    if (!cur) {
      const changes = createChanges(['name', ...COMPARED.keys], wantRec);
      steps.push({ action: 'create', noun: 'keys', item: rec.name, line, changes, send: createSend() });
      continue;
    }
    const curRec = cur as unknown as Record<string, unknown>;
    const changes = COMPARED.keys.filter((f) => wantRec[f] !== curRec[f]).map((f) => ({ field: f, from: curRec[f], to: wantRec[f] }));
    const own = cur.keyPrefix !== '' && o.ownKey?.startsWith(cur.keyPrefix) === true;
    if (o.lostSecrets?.has(rec.name) && !own) {
      const created = createChanges(['name', ...COMPARED.keys], wantRec);
      steps.push({ action: 'rotate', noun: 'keys', item: rec.name, id: cur.id, line, changes: created, send: createSend() });
      continue;
    }
    const send: Record<string, unknown> = {};
    for (const c of changes) send[c.field] = c.to;
    const lockout = own ? lockoutOf(cur, rec, o.now ?? new Date()) : undefined;
    if (changes.length) steps.push({ action: 'update', noun: 'keys', item: rec.name, id: cur.id, line, changes, send, lockout });
  }
}

/** Counts of a plan by action. */
export function planCounts(plan: Plan): { create: number; update: number; delete: number; rotate?: number } {
  const n = (a: Step['action']) => plan.steps.filter((s) => s.action === a).length;
  const rotate = n('rotate');
  return { create: n('create'), update: n('update'), delete: n('delete'), ...(rotate ? { rotate } : {}) };
}

/** A value as a plan shows it: JSON for strings and null, permissions with their letters. */
function shown(field: string, v: unknown): string {
  if (field === 'permissions' && typeof v === 'number') return `${v} (${permissionLetters(v)})`;
  if (field === 'data' && typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** The plan as JSON for scripts (`-o json`): counts, then each step with its field changes; never resource data or a secret. */
function planJson(plan: Plan, extra: Record<string, unknown> = {}) {
  const counts = planCounts(plan);
  return {
    ...extra,
    changes: plan.steps.length,
    ...counts,
    steps: plan.steps.map((s) => ({
      action: s.action,
      noun: s.noun,
      item: s.item,
      id: s.id ?? null,
      line: s.line ?? null,
      changes: s.changes,
    })),
  };
}

/**
 * Prints the plan on stdout: `-o json` planJson; `-o ndjson` one step a line; csv/tsv one row
 * per field change (action, noun, item, id, field, from, to); otherwise text in the style of
 * `terraform plan` (`+` create, `~` update, `-` delete, each field as `from → to`), in color
 * on a terminal. The summary (or "No changes") goes to stderr.
 */
export async function printPlan(rt: Runtime, plan: Plan, source: string, extra: Record<string, unknown> = {}): Promise<void> {
  const format = rt.out.opts.format;
  const json = planJson(plan, extra);
  if (format === 'json') rt.out.json(json);
  else if (format === 'ndjson') for (const s of json.steps) rt.out.json(s);
  else if (format === 'csv' || format === 'tsv') {
    const rows = plan.steps.flatMap((s) => (s.changes.length ? s.changes : [undefined]).map((c) => ({ s, c })));
    await rt.out.list(json, rows, [
      { header: 'action', get: (r) => r.s.action },
      { header: 'noun', get: (r) => r.s.noun },
      { header: 'item', get: (r) => r.s.item },
      { header: 'id', get: (r) => r.s.id },
      { header: 'field', get: (r) => r.c?.field },
      { header: 'from', get: (r) => (r.c ? shown(r.c.field, r.c.from) : undefined) },
      { header: 'to', get: (r) => (r.c ? shown(r.c.field, r.c.to) : undefined) },
    ]);
  } else {
    const color = await rt.out.colorer();
    const paint = (c: 'green' | 'yellow' | 'red', s: string) => (color ? color(c, s) : s);
    let text = '';
    for (const s of plan.steps) {
      const [mark, c] =
        s.action === 'create'
          ? ['+', 'green']
          : s.action === 'update'
            ? ['~', 'yellow']
            : s.action === 'rotate'
              ? ['±', 'yellow']
              : ['-', 'red'];
      const where = [s.id !== undefined ? `id ${s.id}` : '', s.line !== undefined ? `${source}:${s.line}` : ''].filter(Boolean).join(', ');
      text += paint(c as 'green', `${mark} ${s.action} ${describeItem(s)}`) + (where ? ` (${where})` : '') + '\n';
      for (const ch of s.changes)
        text +=
          s.action === 'create' || s.action === 'rotate'
            ? `    ${ch.field}: ${shown(ch.field, ch.to)}\n`
            : `    ${ch.field}: ${shown(ch.field, ch.from)} → ${shown(ch.field, ch.to)}\n`;
    }
    rt.out.raw(text);
  }
  for (const n of plan.notes) rt.out.info(n);
  const c = planCounts(plan);
  // the plan's summary is part of the report; "no changes" is a success note (silent off a terminal: `diff --exit-code` in cron)
  if (plan.steps.length)
    rt.out.info(`Plan: ${c.create} to create, ${c.update} to update, ${c.delete} to delete${c.rotate ? `, ${c.rotate} to rotate` : ''}.`);
  else rt.out.note(`No changes: the service matches ${source}.`);
}
