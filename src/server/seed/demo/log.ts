/**
 * The demo's license transaction log: licenses in the customers' hands, then 3000 events
 * about them over 30 days (EVENTS), rendered as Serilog writes them.
 */
import type { LogLevel } from '../../../wire.js';
import type { DatasetLogEntry } from '../dataset.js';
import { EDITIONS, INITIALS, PRODUCTS, SURNAMES } from './catalogue.js';
import type { Market } from './customers.js';
import { EVENTS, type Ctx, type License, type Values } from './log-events.js';
import { UPPER_ALNUM, type Rng } from './rng.js';
import { DAY, iso } from '../../../time.js';

/** Serilog's rendering of a message template: strings quoted, numbers as they are. */
function render(template: string, values: Values): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = values[name];
    if (v === undefined) return whole;
    return typeof v === 'number' ? String(v) : JSON.stringify(v);
  });
}

/** A Windows or Linux host name of a customer's machine. */
function machineName(r: Rng, customerCode: string): string {
  switch (r.int(0, 4)) {
    case 0:
      return `DESKTOP-${r.chars(7, UPPER_ALNUM)}`;
    case 1:
      return `WS-${customerCode.slice(2, 5)}-${r.int(100, 999)}`;
    case 2:
      return `build-agent-${String(r.int(1, 12)).padStart(2, '0')}`;
    case 3:
      return `LAPTOP-${r.chars(6, UPPER_ALNUM)}`;
    default:
      return `srv-app-${String(r.int(1, 8)).padStart(2, '0')}`;
  }
}

/** Who makes the demo's management calls: the user, their key's id (the dataset's order), how often, and what they change. */
const STAFF: { user: string; keyId: number; weight: number; calls: [method: string, path: (r: Rng) => string, weight: number][] }[] = [
  {
    user: 'admin',
    keyId: 1,
    weight: 2,
    calls: [
      ['POST', () => '/v1/api-keys', 3],
      ['PUT', () => '/v1/api-keys', 2],
      ['DELETE', (r) => `/v1/api-keys/${r.int(5, 40)}`, 2],
      ['POST', () => '/v1/resources', 1],
    ],
  },
  {
    user: 'license-manager',
    keyId: 2,
    weight: 5,
    calls: [
      ['POST', (r) => `/v1/products/${r.int(1, 5)}/releases/${r.int(1, 16)}/license-templates`, 4],
      ['PUT', (r) => `/v1/products/${r.int(1, 5)}/releases/${r.int(1, 16)}/license-templates`, 5],
      ['DELETE', (r) => `/v1/products/${r.int(1, 5)}/releases/${r.int(1, 16)}/license-templates/${r.int(1, 40)}`, 1],
      ['POST', () => '/v1/assemblies', 2],
      ['PUT', () => '/v1/resources', 1],
    ],
  },
  {
    user: 'sales',
    keyId: 3,
    weight: 4,
    calls: [
      ['POST', (r) => `/v1/customers/${r.int(1, 20)}/orders`, 6],
      ['PUT', (r) => `/v1/customers/${r.int(1, 20)}/orders`, 3],
      ['DELETE', (r) => `/v1/customers/${r.int(1, 20)}/orders/${r.int(1, 300)}`, 1],
    ],
  },
];

/** The audit entry's template of a management call, as the service writes it (docs/contract.md §6). */
const AUDIT_TEMPLATE = '{Method} {Path} by API key {ApiKeyId} of user {OwnerId}, record {RecordId}';

/**
 * `count` management calls (the service's audit entries: Information, AUDIT_TEMPLATE) by the
 * demo's staff over the 30 days before `nowMs`, in working hours; `r` is the `audit` stream.
 */
function makeAudit(r: Rng, nowMs: number, count: number): { t: number; e: DatasetLogEntry }[] {
  const out: { t: number; e: DatasetLogEntry }[] = [];
  for (let i = 0; i < count; i++) {
    const who = r.weighted(STAFF.map((s) => [s, s.weight] as const));
    const [method, path] = r.weighted(who.calls.map((c) => [c, c[2]] as const));
    const day = Math.floor(nowMs / DAY) * DAY - r.int(0, 29) * DAY;
    const t = Math.min(nowMs - 1000, day + r.int(7 * 3600, 18 * 3600) * 1000 + r.int(0, 999));
    const values: Values = { Method: method, Path: path(r), ApiKeyId: who.keyId, OwnerId: who.user, RecordId: r.int(1, 400) };
    out.push({
      t,
      e: {
        timeStamp: iso(t),
        level: 'Information',
        message: render(AUDIT_TEMPLATE, values),
        messageTemplate: AUDIT_TEMPLATE,
        properties: JSON.stringify({ ...values, SourceContext: 'Halvard.Licensing.Service.Audit' }),
      },
    });
  }
  return out;
}

/**
 * 3000 log entries, oldest first, over the 30 days before `nowMs` (ms since the epoch):
 * 2850 license events, 600 of them in the last 24 hours, the first six of those one per
 * level, so that `--since 24h` shows every level; each is about one of 1-4 licenses per
 * product a customer owns (`market`), of a release of that product. And 150 management
 * calls (audit entries) by the demo's staff. `r` is the `log` stream, `audit` the `audit` one.
 */
export function makeLog(r: Rng, nowMs: number, { customers, owned, releaseInfo }: Market, audit: Rng): DatasetLogEntry[] {
  const TOTAL = 2850;
  const RECENT = 600; // within the last 24 h

  // licenses in the field
  const licenses: License[] = [];
  owned.forEach((ps, ci) => {
    for (const pi of ps) {
      const p = PRODUCTS[pi]!;
      const infos = releaseInfo[pi]!;
      const count = r.int(1, 4);
      for (let k = 0; k < count; k++) {
        const rel = r.chance(0.7) ? infos[infos.length - 1]! : r.pick(infos);
        const t = r.pick(rel.templates);
        const seats =
          t.edition === 'Floating' ? r.pick([10, 25, 50]) : t.edition === 'Enterprise' ? 20 : Number(EDITIONS[t.edition].developers) || 5;
        const code = customers[ci]!.code;
        licenses.push({
          id: `LIC-${r.chars(4, UPPER_ALNUM)}-${r.chars(4, UPPER_ALNUM)}-${r.chars(4, UPPER_ALNUM)}`,
          customerCode: code,
          productCode: p.code,
          productName: p.name,
          version: rel.version,
          edition: t.edition,
          machines: Array.from({ length: r.int(1, 6) }, () => machineName(r, code)),
          seats,
        });
      }
    }
  });

  const floating = licenses.filter((l) => l.seats >= 5);
  if (floating.length === 0) floating.push(...licenses);

  // the few licenses most refusals are about: two keys deployed beyond their activations, two floating pools too small
  const hot = { leaked: [r.pick(licenses), r.pick(licenses)], saturated: [r.pick(floating), r.pick(floating)] };

  const levels: LogLevel[] = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'];
  const levelWeights: [LogLevel, number][] = [
    ['Verbose', 8],
    ['Debug', 14],
    ['Information', 58],
    ['Warning', 13],
    ['Error', 6.6],
    ['Fatal', 0.4],
  ];

  const entries: { t: number; e: DatasetLogEntry }[] = [];
  for (let i = 0; i < TOTAL; i++) {
    const recent = i < RECENT;
    const t = recent ? nowMs - Math.floor(r.float() * DAY) : nowMs - DAY - Math.floor(r.float() * 29 * DAY) - 1;
    // the first six recent entries cover every level, so `--since 24h` shows all of them
    const level = recent && i < levels.length ? levels[i]! : r.weighted(levelWeights);
    const def = r.weighted(EVENTS.filter((d) => d.level === level).map((d) => [d, d.weight] as const));
    const lic = def.hot && r.chance(0.6) ? r.pick(hot[def.hot]) : r.pick(def.floating ? floating : licenses);
    const ctx: Ctx = {
      r,
      lic,
      machine: r.pick(lic.machines),
      user: `${r.pick([...INITIALS])}.${r.pick(SURNAMES)}`,
      ip: r.chance(0.15)
        ? `2001:db8:${r.int(1, 0xffff).toString(16)}::${r.int(1, 0xffff).toString(16)}`
        : `${r.pick(['192.0.2', '198.51.100', '203.0.113'])}.${r.int(1, 254)}`,
    };
    const values = def.values(ctx);
    const entry: DatasetLogEntry = {
      timeStamp: iso(t),
      level,
      message: render(def.template, values),
      messageTemplate: def.template,
      properties: JSON.stringify({ ...values, SourceContext: def.source }),
    };
    if (def.exception) entry.exception = def.exception(ctx, values);
    entries.push({ t, e: entry });
  }
  entries.push(...makeAudit(audit, nowMs, 150));
  entries.sort((a, b) => a.t - b.t);
  return entries.map((x) => x.e);
}
