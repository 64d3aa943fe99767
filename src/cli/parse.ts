/**
 * Flag value parsers. Each throws commander's InvalidArgumentError with the allowed
 * forms, which commander reports naming the flag; main() maps it to exit code 2.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { OUTPUT_FORMATS, type OutputFormat } from './output.js';
import { UsageError } from './errors.js';
import { DAY, parseDurationMs, parseRfc3339 } from '../time.js';
import { INT32_MAX, LOG_LEVELS, TAKE_MAX } from '../wire.js';

const PERM_NAMES: Record<string, number> = { read: 1, write: 2, delete: 4 };
const PERM_LETTERS: Record<string, number> = { r: 1, w: 2, d: 4 };
const PERM_FORMS = 'a number 0..7 (Read=1, Write=2, Delete=4), letters from "rwd" (e.g. rw), or names "read,write,delete"';

/** `--perm`: 0..7, letters `rwd`, or names `read,write,delete` → permission bitmask (the API: Read 1, Write 2, Delete 4; docs/contract.md). */
export function parsePermissions(value: string): number {
  const v = value.trim().toLowerCase();
  if (/^[0-7]$/.test(v)) return Number(v);
  if (/^[rwd]+$/.test(v) && new Set(v).size === v.length) {
    return [...v].reduce((m, ch) => m | PERM_LETTERS[ch]!, 0);
  }
  const names = v.split(',').map((s) => s.trim());
  // own keys only: `"constructor" in {}` is true and would let `--perm constructor` through as 0
  if (v && names.every((n) => Object.hasOwn(PERM_NAMES, n)) && new Set(names).size === names.length) {
    return names.reduce((m, n) => m | PERM_NAMES[n]!, 0);
  }
  throw new InvalidArgumentError(`expected ${PERM_FORMS}.`);
}

/** Bitmask → `rwd`-style letters with dashes, e.g. 5 → `r-d`. */
export function permissionLetters(bits: number): string {
  return `${bits & 1 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${bits & 4 ? 'd' : '-'}`;
}

/** An id: a positive int32, 1..2147483647 (contract §2). */
export function parseId(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('expected a positive integer id (1..2147483647).');
  const n = Number(value.trim());
  if (n < 1 || n > INT32_MAX) throw new InvalidArgumentError('expected a positive integer id (1..2147483647).');
  return n;
}

/** `--take`: 0..1000 (contract §5: the service's maximum page). */
export function parseTake(value: string): number {
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) > TAKE_MAX) throw new InvalidArgumentError(`expected an integer 0..${TAKE_MAX}.`);
  return Number(v);
}

/** `--skip`, `--limit`: a non-negative int32. */
export function parseCount(value: string): number {
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) > INT32_MAX) throw new InvalidArgumentError('expected an integer 0..2147483647.');
  return Number(v);
}

/** `--level`: a Serilog level, case-insensitive → canonical spelling (contract §6). */
export function parseLevel(value: string): string {
  const found = LOG_LEVELS.find((l) => l.toLowerCase() === value.trim().toLowerCase());
  if (!found) throw new InvalidArgumentError(`expected one of ${LOG_LEVELS.join(', ')}.`);
  return found;
}

const TIME_FORMS = 'an RFC 3339 time (2025-01-18T14:04:02Z), a date (2025-01-18), or a relative age (90s, 30m, 24h, 7d, 2w)';

/**
 * A point in time: RFC 3339 with a zone, a plain date (midnight UTC), or an age before
 * `now` (a duration of src/time.ts with its unit: `30m`, `24h`, `7d`, `1.5h`). Returns RFC 3339 UTC (contract §2).
 */
export function parseTime(value: string, now: Date): string {
  const v = value.trim();
  const age = parseDurationMs(v);
  if (age !== undefined) return relative(now, -age, TIME_FORMS);
  // the service's own rule (contract §2), plus one convenience: seconds may be left out
  const ms = parseRfc3339(v.replace(/^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2})(?=[Zz+-])/, '$1:00'));
  if (ms !== undefined) return new Date(ms).toISOString();
  throw new InvalidArgumentError(`expected ${TIME_FORMS}.`);
}

/** 0000-01-01T00:00:00Z and the last ms of 9999: the range RFC 3339 can write. */
const YEAR_0 = -62_167_219_200_000;
const YEAR_9999_END = 253_402_300_799_999;

/** `now` moved by `deltaMs`, as RFC 3339; a usage error when that leaves the years 0000..9999 (contract §2 timestamps). */
function relative(now: Date, deltaMs: number, forms: string): string {
  const ms = now.getTime() + deltaMs;
  if (!Number.isFinite(ms) || ms < YEAR_0 || ms > YEAR_9999_END) {
    throw new InvalidArgumentError(`expected ${forms}, within the years 0000..9999.`);
  }
  return new Date(ms).toISOString();
}

/** Longest --timeout / --interval: timers take at most 2^31-1 ms (past that Node fires at once), so cap well below it. */
const DURATION_MAX_MS = DAY;

/** `--timeout`, `--interval`, LIC_TIMEOUT: a duration (src/time.ts: `500ms`, `2s`, `1.5m`, `1h`; a bare number is seconds) → ms, 1ms..24h. */
export function parseDuration(value: string): number {
  const ms = parseDurationMs(value, { bareSeconds: true });
  if (ms === undefined) throw new InvalidArgumentError('expected a duration such as 500ms, 2s or 1m.');
  if (ms < 1 || ms > DURATION_MAX_MS) {
    throw new InvalidArgumentError('expected a duration from 1ms to 24h, such as 500ms, 2s or 1m.');
  }
  return ms;
}

/** `--retries`, LIC_RETRIES: extra attempts after the first, an integer 0..10. */
export function parseRetries(value: string): number {
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) > 10) throw new InvalidArgumentError('expected an integer 0..10 (extra attempts after the first).');
  return Number(v);
}

/** `--base-url`: http or https, no credentials, no query or fragment; trailing slashes dropped. */
export function parseBaseUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an http(s) URL such as http://127.0.0.1:8765.');
  }
  // a UsageError, not InvalidArgumentError: commander would quote the value, password and all
  if (u.username || u.password)
    throw new UsageError('the URL must not carry credentials (user:password@); store the API key in a profile.');
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidArgumentError('expected an http:// or https:// URL.');
  if (u.search || u.hash)
    throw new InvalidArgumentError('expected a URL without ?query or #fragment, such as https://licensing.example.com/api.');
  return u.toString().replace(/\/+$/, '');
}

/** Date-range flags share this check: `--since` must come before `--until`. */
export function checkRange(since: string | undefined, until: string | undefined): void {
  if (since && until && Date.parse(since) >= Date.parse(until)) {
    throw new UsageError('--since must be earlier than --until.');
  }
}

/**
 * `--expires`: RFC 3339, a date, or a duration *ahead* of `now` (src/time.ts, with its unit, an optional `+`: `90d`, `+12h`).
 * Returns RFC 3339 UTC.
 */
export function parseExpiry(value: string, now: Date): string {
  const ahead = parseDurationMs(value.trim().replace(/^\+/, ''));
  if (ahead !== undefined) return relative(now, ahead, 'an RFC 3339 time, a date, or a time ahead such as 90d or 12h');
  try {
    return parseTime(value, now);
  } catch {
    throw new InvalidArgumentError(
      'expected an RFC 3339 time (2027-01-18T00:00:00Z), a date (2027-01-18), or a time ahead such as 90d or 12h.',
    );
  }
}

/**
 * An enum flag's parser, case-insensitive (`-o JSON`, `-X post`) → the canonical spelling
 * from `choices`. Use after commander's `.choices()` (which keeps them for help and
 * completions): `.choices(C).argParser(choiceOf(C))`. Error message as commander's own.
 */
export function choiceOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value) => {
    const found = choices.find((c) => c.toLowerCase() === value.trim().toLowerCase());
    if (found === undefined) throw new InvalidArgumentError(`Allowed choices are ${choices.join(', ')}.`);
    return found;
  };
}

/**
 * `--expires` of keys create/update, after parseExpiry: a time in the past is refused
 * unless `force` (a key that is dead on arrival is nearly always a typo), as a UsageError
 * naming the flag. `null` (update's `--expires never`) always passes.
 */
export function checkExpiry(expires: string | null | undefined, now: Date, force: boolean | undefined): void {
  if (typeof expires === 'string' && !force && Date.parse(expires) <= now.getTime()) {
    throw new UsageError(`--expires ${expires} is in the past; the key would be expired at once (add --force to set it anyway)`);
  }
}

/** `keys update --expires`: parseExpiry, or `never` (any case) → `null`, which clears the expiry (contract §2: an unset timestamp is null). */
export function parseExpiryOrNever(value: string, now: Date): string | null {
  if (value.trim().toLowerCase() === 'never') return null;
  try {
    return parseExpiry(value, now);
  } catch {
    throw new InvalidArgumentError(
      'expected an RFC 3339 time (2027-01-18T00:00:00Z), a date (2027-01-18), a time ahead such as 90d or 12h, or never to clear it.',
    );
  }
}

/** The output formats each command honours, as its registration declared them (outputFormats). */
const outputsOf = new WeakMap<Command, readonly OutputFormat[]>();

/**
 * Declares that `cmd` honours `-o/--output` in `formats` (default: every format), and,
 * when json is one of them, `--json [fields]` and `--raw` (as gh's AddJSONFlags attaches
 * `--json` only to the commands that print JSON). addOutputOptions adds the flags, after
 * the command's own, once every command is registered; a command never declared has no
 * `-o`, so commander itself refuses it (`unknown option '-o'`), and an `-o` outside
 * `formats` is commander's `argument 'csv' is invalid. Allowed choices are table, json.`
 */
export function outputFormats(cmd: Command, formats: readonly OutputFormat[] = OUTPUT_FORMATS, opts: { fields?: boolean } = {}): Command {
  outputsOf.set(cmd, formats);
  if (opts.fields) choosesFields.add(cmd);
  return cmd;
}

/** `keys create` for the command `create` under `keys` (the root's name left out). */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The commands whose `--json` takes a field list (`opts.fields` of outputFormats): lists, `resources get`, `templates show`. */
const choosesFields = new WeakSet<Command>();

/** Adds the output flags (outputFormats) to every command under `program` that declared them. */
export function addOutputOptions(program: Command): void {
  const walk = (cmd: Command) => {
    const formats = outputsOf.get(cmd);
    if (formats) {
      cmd.addOption(new Option('-o, --output <format>', 'output format').choices(formats).argParser(choiceOf(formats)));
      if (formats.includes('json')) {
        cmd
          .option(
            '--json [fields]',
            choosesFields.has(cmd)
              ? 'same as --output json; with comma-separated fields (gh style), also --fields FIELDS'
              : 'same as --output json (fields are chosen only by list, get and show commands: pipe to jq here)',
            (v: string) => v || true,
          )
          .option('--raw', "with json: the service's body untouched (not normalised: fields it left out stay out)");
      }
    }
    cmd.commands.forEach(walk);
  };
  walk(program);
}

/** The output flags and whether each takes a value (hoistOutputFlags, nounOf): `--json`'s is optional. */
export const OUTPUT_FLAGS: ReadonlyMap<string, 'required' | 'optional' | 'none'> = new Map([
  ['-o', 'required'],
  ['--output', 'required'],
  ['--json', 'optional'],
  ['--raw', 'none'],
] as const);

/**
 * Before a verb runs (preAction): `--json` with a different `-o` is a UsageError naming the
 * flags; nothing is sent. (An `-o` the verb can't honour never gets here: see outputFormats.)
 */
export function checkOutputFlags(cmd: Command): void {
  const g = cmd.optsWithGlobals() as { json?: unknown; output?: string };
  if (typeof g.json === 'string' && !choosesFields.has(cmd)) {
    throw new UsageError(
      `--json ${g.json}: \`lic ${commandPath(cmd)}\` has no fields to choose: give --json alone and pick fields with jq`,
    );
  }
  if (g.json && g.output !== undefined && g.output !== 'json') {
    throw new UsageError(`--json and --output ${g.output} conflict: give one of them`);
  }
}

/**
 * Moves the required-option check of every command under `program` from commander's
 * parse (where it comes before the unknown-option check) to a preAction hook (after it):
 * `keys create --prem 7` then says "unknown option '--prem' (Did you mean --perm?)"
 * rather than "required option '--perm <perm>' not specified". Uses the public
 * `Option.mandatory` and `hook()`; the message is commander's own. Call after every
 * command is registered.
 */
export function deferRequiredOptions(program: Command): void {
  const required = new WeakMap<Command, Option[]>();
  const walk = (cmd: Command) => {
    const opts = (cmd.options as readonly Option[]).filter((o) => o.mandatory);
    for (const o of opts) o.mandatory = false;
    if (opts.length) required.set(cmd, opts);
    cmd.commands.forEach(walk);
  };
  walk(program);
  program.hook('preAction', (_root, action) => {
    for (let c: Command | null = action; c; c = c.parent) {
      for (const o of required.get(c) ?? []) {
        if (c.getOptionValue(o.attributeName()) === undefined) {
          c.error(`error: required option '${o.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
        }
      }
    }
  });
}
