/**
 * Help beyond the verbs: the topics `lic help environment|exit-codes|filters`
 * next to commander's own `lic help NOUN`, the root help naming the topics, inherited
 * global flags in every verb's help, and suggestions for mistyped nouns, verbs and flags
 * (the unknown option before commander's required-option check).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('help topics', () => {
  it('lic help environment lists every variable lic and its flags read, with examples', async () => {
    const r = await runCli(['help', 'environment']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    for (const v of [
      'LIC_PROFILE',
      'LIC_BASE_URL',
      'LIC_API_KEY',
      'LIC_CONFIG_DIR',
      'LIC_DATA_DIR',
      'LIC_TIMEOUT_MS',
      'LIC_TIMEOUT',
      'LIC_RETRIES',
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'NO_PROXY',
      'NODE_EXTRA_CA_CERTS',
      'LIC_MAX_REPLY_BYTES',
      'NO_COLOR',
      'FORCE_COLOR',
      'CLICOLOR_FORCE',
      'LIC_DEBUG',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`(^|[\\s,])${v}[\\s,=]`));
    }
    expect(r.stdout).toContain('flag > environment > profile');
    expect(r.stdout).toContain('\nExamples:\n');
  });

  it('lic help exit-codes lists 0 1 2 3 4 5 130 and says a closed pipe is 0', async () => {
    const r = await runCli(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    for (const c of ['0', '1', '2', '3', '4', '5', '130']) expect(r.stdout).toMatch(new RegExp(`\\n  ${c} +\\S`));
    expect(r.stdout).toContain('head -1');
  });

  it('lic help filters gives the grammar with examples that use --where', async () => {
    const r = await runCli(['help', 'filters']);
    expect(r.code).toBe(0);
    for (const s of ['Contains("x")', 'StartsWith', '!=', 'and', 'null', 'TimeStamp >= "2025-01-18"']) expect(r.stdout).toContain(s);
    const examples = r.stdout.split('\nExamples:\n')[1]!.trimEnd().split('\n');
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const l of examples) expect(l).toMatch(/^ {2}lic \w+ list .*--where '/);
  });

  it('lic TOPIC --help and lic TOPIC print the same text as lic help TOPIC', async () => {
    const viaHelp = await runCli(['help', 'filters']);
    expect((await runCli(['filters', '--help'])).stdout).toBe(viaHelp.stdout);
    expect((await runCli(['filters'])).stdout).toBe(viaHelp.stdout);
  });

  it('lic help keys still shows the keys help; lic --help names the topics', async () => {
    const keys = await runCli(['help', 'keys']);
    expect(keys.code).toBe(0);
    expect(keys.stdout).toContain('Usage: lic keys [options] [command]');
    const root = await runCli(['--help']);
    expect(root.stdout).toMatch(/Help topics \(lic help TOPIC\):\n {2}environment +\S.*\n {2}exit-codes +\S.*\n {2}filters +\S/);
    // topics are not commands in the list
    expect(root.stdout.split('Commands:')[1]!.split('Help topics')[0]).not.toMatch(/\n {2}(environment|exit-codes|filters)\b/);
  });
});

describe('inherited flags in help', () => {
  it.each([
    ['keys create', ['keys', 'create']],
    ['log list', ['log', 'list']],
    ['keys', ['keys']],
  ] as const)('lic %s --help lists the global flags under Global Options', async (_name, path) => {
    const r = await runCli([...path, '--help']);
    expect(r.code).toBe(0);
    const globals = r.stdout.split('\nGlobal Options:\n')[1];
    expect(globals, r.stdout).toBeDefined();
    for (const f of [
      '--profile <name>',
      '--base-url <url>',
      '-o, --output <format>',
      '--json',
      '--no-color',
      '-v, --verbose',
      '-q, --quiet',
    ])
      expect(globals).toContain(f);
  });
});

describe('suggestions', () => {
  it('an unknown noun or verb suggests the nearest', async () => {
    const noun = await runCli(['kyes']);
    expect(noun.code).toBe(2);
    expect(noun.stderr).toContain("error: unknown command 'kyes'\n(Did you mean keys?)");
    const verb = await runCli(['resources', 'lsit']);
    expect(verb.code).toBe(2);
    expect(verb.stderr).toContain("error: unknown command 'lsit'\n(Did you mean list?)");
  });

  it('an unknown option is named (with the nearest) before a missing required one', async () => {
    const r = await runCli(['keys', 'create', '--prem', '7']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe("error: unknown option '--prem'");
    expect(r.stderr).toContain('(Did you mean --perm?)');
    expect(r.stderr).not.toContain('required option');
    // the required check still runs when nothing is unknown, with commander's own words
    const missing = await runCli(['keys', 'create', '--name', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')[0]).toBe("error: required option '--perm <perm>' not specified");
    // a global flag near the verb's is suggested too
    const g = await runCli(['keys', 'list', '--verbos']);
    expect(g.stderr).toContain('(Did you mean --verbose?)');
  });

  it('--help still wins over a missing required option', async () => {
    const r = await runCli(['keys', 'create', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--perm <perm>');
  });
});
