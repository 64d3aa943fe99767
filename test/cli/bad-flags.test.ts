// Cross-cutting: a bad value for every flag of every verb, derived from the command tree; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
/**
 * Every verb's invalid flag values, derived from the command tree: each value-taking option
 * and id argument of every verb is given a bad value (BAD, by flag name), and so is `-o`:
 * a verb that declares it (outputFormats) names its own formats, one that doesn't refuses
 * it as an unknown option. Each must exit 2 with one stderr line naming the flag and what it accepts, print
 * nothing on stdout and send no request (a recording proxy counts what reaches the
 * service). A new verb is covered by what it declares; a new option with no entry in BAD
 * or FREE fails the last test until it gets one.
 */
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { envFor, runCli } from '../helpers/cli.js';
import { testContext } from '../helpers/context.js';
import { useService } from '../helpers/fixtures.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';

/**
 * A bad value per option (long name) or argument name, and what stderr must say it accepts;
 * a key `VERB PATH --flag` (e.g. `products list --customer`) is that verb's own, before `--flag`.
 */
const BAD: Record<string, { value: string; accepts: RegExp }> = {
  // the accepted formats are each verb's own (outputOf)
  '--output': { value: 'yaml', accepts: /Allowed choices are/ },
  id: { value: 'abc', accepts: /positive integer/ },
  '--id': { value: 'abc', accepts: /positive integer/ },
  '--perm': { value: 'rwz', accepts: /0\.\.7/ },
  '--level': { value: 'Loud', accepts: /Verbose, Debug, Information, Warning, Error, Fatal/ },
  '--to': { value: 'cloud', accepts: /keyring, file/ },
  '--since': { value: 'soonish', accepts: /RFC 3339/ },
  '--until': { value: 'soonish', accepts: /RFC 3339/ },
  '--before': { value: 'soonish', accepts: /RFC 3339/ },
  '--expires': { value: 'soonish', accepts: /RFC 3339|never/ },
  '--fields': { value: 'nosuchfield', accepts: /fields: / },
  '--limit': { value: '-1', accepts: /integer|number/ },
  '--take': { value: '-1', accepts: /integer|number/ },
  '--skip': { value: '-1', accepts: /integer|number/ },
  '--lines': { value: '-1', accepts: /integer|number/ },
  '--nouns': { value: 'users', accepts: /resources, assemblies, keys/ },
  '--sort': { value: 'nosuch', accepts: /unknown field "nosuch" of [A-Za-z ]+; fields: id, / },
  '--by': { value: 'fortnight', accepts: /hour, day, week/ },
  '--grace': { value: 'soon', accepts: /0 \(revoke the old key at once\) or a duration up to 366d/ },
  '--interval': { value: 'soon', accepts: /a duration such as 500ms, 2s or 1m/ },
  '--method': { value: 'FETCH', accepts: /GET, POST, PUT, DELETE/ },
  '--port': { value: '70000', accepts: /a port 0\.\.65535/ },
  '--auth-fail-limit': { value: '-1', accepts: /N\/DURATION.*such as 5\/60s/ },
  '--version': { value: '1.x', accepts: /a\.b\.c\.d with each part 0\.\.65535/ },
  '--assembly-version': { value: '1.x', accepts: /a\.b\.c\.d with each part 0\.\.65535/ },
  '--public-key-token': { value: 'xyz', accepts: /16 hex digits.*"null" for none/ },
  '--mapping-file-id': { value: 'abc', accepts: /a resource id \(1\.\.2147483647\), or 0 for none/ },
  '--customer': { value: 'abc', accepts: /positive integer id \(1\.\.2147483647\)/ },
  'products list --customer': { value: 'C/1', accepts: /a customer code such as .*cannot contain "\/"/ },
  '--product': { value: 'abc', accepts: /positive integer id \(1\.\.2147483647\)/ },
  '--release': { value: 'abc', accepts: /positive integer id \(1\.\.2147483647\)/ },
  // the list filters: an empty value would match nothing by accident (an unset shell variable)
  '--type': { value: '', accepts: /a non-empty value/ },
  '--format': { value: '', accepts: /a non-empty value/ },
  '--status': { value: '', accepts: /a non-empty value/ },
  '--payment-status': { value: '', accepts: /a non-empty value/ },
  '--payment-type': { value: '', accepts: /a non-empty value/ },
  '--currency': { value: '', accepts: /a non-empty value/ },
  '--template': { value: '', accepts: /a non-empty value/ },
  field: { value: 'a b', accepts: /template, level, exception, message or a property name/ },
};

/** Options for which any text is a valid value (names, paths, free text, the query language the service parses); `VERB PATH --flag` for one verb's. */
const FREE = new Set<string>([
  '--debug-symbols-key',
  // a resource's type and data format are free text when written ('' clears them)
  'resources create --type',
  'resources create --format',
  'resources update --type',
  'resources update --format',
  '--name',
  '--description',
  '--contains',
  '--name-contains',
  '--where',
  '--owner',
  '--code',
  '--culture',
  '--source',
  '--signed-by',
  '--data-file',
  '--data-out',
  '--db',
  '--from-dll',
  '--input',
  '--key-file',
  '--keys-file',
  '--seed',
  '--field',
  '--header',
  '--host',
  '--file',
  '--data-dir',
  '--key-dir',
  '--html',
  // field names: the list verbs check them against the noun's (test/cli/list/json-fields.test.ts)
  '--json',
]);

interface Case {
  verb: string[];
  flag: string;
  argv: string[];
  accepts: RegExp;
}

/** Every leaf command of the program, as its path of names, with the command. */
async function verbs(): Promise<{ path: string[]; cmd: Command }[]> {
  const program = await buildProgram(testContext().ctx);
  const out: { path: string[]; cmd: Command }[] = [];
  const walk = (c: Command, path: string[]) => {
    for (const sub of c.commands) {
      if (sub.commands.length) walk(sub, [...path, sub.name()]);
      else out.push({ path: [...path, sub.name()], cmd: sub });
    }
  };
  walk(program, []);
  return out;
}

const VERBS = await verbs();

/** The bad value of option/argument `name` of the verb at `path`: its own row, else the shared one. */
const badOf = (path: string[], name: string) => BAD[`${path.join(' ')} ${name}`] ?? BAD[name];
/** Whether any text is a valid value of `flag` of the verb at `path`. */
const isFree = (path: string[], flag: string) => FREE.has(`${path.join(' ')} ${flag}`) || FREE.has(flag);

/** What `-o` of a verb accepts: the formats it declared (outputFormats), in order; undefined when it has no `-o`. */
function outputOf(cmd: Command): RegExp | undefined {
  const o = cmd.options.find((x) => x.long === '--output');
  return o && new RegExp(`Allowed choices are ${o.argChoices!.join(', ')}\\.$`);
}

function cases(): Case[] {
  const all: Case[] = [];
  for (const { path, cmd } of VERBS) {
    const args = cmd.registeredArguments.filter((a) => a.required);
    const neutral = args.map((a) => (badOf(path, a.name()) ? '1' : 'x'));
    const out = outputOf(cmd);
    all.push({
      verb: path,
      flag: out ? '--output' : '-o',
      argv: [...path, ...neutral, '-o', BAD['--output']!.value],
      accepts: out ?? /unknown option '-o'/,
    });
    for (const opt of cmd.options) {
      const bad = opt.long && !isFree(path, opt.long) && badOf(path, opt.long);
      if (bad && (opt.required || opt.optional))
        all.push({
          verb: path,
          flag: opt.long!,
          argv: [...path, ...neutral, opt.long!, bad.value],
          accepts: opt.long === '--output' ? out! : bad.accepts,
        });
    }
    args.forEach((a, i) => {
      const bad = badOf(path, a.name());
      if (bad)
        all.push({
          verb: path,
          flag: a.name(),
          argv: [...path, ...neutral.map((n, j) => (j === i ? bad.value : n))],
          accepts: bad.accepts,
        });
    });
  }
  return all;
}

const { svc } = useService({ seed: 'demo' });
let proxy: RecordingProxy;
beforeAll(async () => {
  proxy = await startRecordingProxy(svc.url);
});
afterAll(() => proxy.close());

describe('a bad flag value on any verb: exit 2, one line naming the flag and what it accepts, no request', () => {
  it.each(cases().map((c) => [c.argv.join(' '), c] as const))('lic %s', async (_, c) => {
    const before = proxy.seen.length;
    const r = await runCli(c.argv, { env: envFor(proxy, svc.adminKey) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(proxy.seen.slice(before)).toEqual([]);
    // one line, `lic: <message>`, commander's errors included
    const [line, ...rest] = r.stderr.trimEnd().split('\n');
    expect(rest, r.stderr).toEqual([]);
    expect(line).toMatch(/^lic: /);
    expect(line).toContain(c.flag.replace(/^--/, ''));
    expect(line).toMatch(c.accepts);
  });
});

it('every value-taking option of every verb has a bad value in BAD, or is listed in FREE', () => {
  const missing = VERBS.flatMap(({ path, cmd }) =>
    cmd.options
      .filter((o) => (o.required || o.optional) && !badOf(path, o.long!) && !isFree(path, o.long!))
      .map((o) => `${path.join(' ')} ${o.long}`),
  );
  expect(missing.join('\n')).toBe('');
});
