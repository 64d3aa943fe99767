// Cross-cutting: help topics, inherited global flags and suggestions for every noun and verb; a verb's own behaviour is in test/commands/<noun>/<verb>.test.ts.
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
    // a command line wider than the terminal is continued with ` \` (src/cli/layout.ts)
    const examples = r.stdout
      .split('\nExamples:\n')[1]!
      .trimEnd()
      .replace(/ \\\n +/g, ' ')
      .split('\n');
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
    for (const f of ['--profile <name>', '--base-url <url>', '--no-color', '-v, --verbose', '-q, --quiet']) expect(globals).toContain(f);
    // the output flags are the verb's own (outputFormats), listed with its options, not inherited
    for (const f of ['--output', '--json', '--raw']) expect(globals).not.toContain(f);
    const own = r.stdout.split('\nGlobal Options:\n')[0]!;
    if (path.length === 2) for (const f of ['-o, --output <format>', '--json [fields]', '--raw']) expect(own).toContain(f);
    else expect(own).not.toContain('--output');
  });
});

describe('suggestions', () => {
  it('an unknown noun or verb is one lic: line with the nearest inside it', async () => {
    const noun = await runCli(['kyes']);
    expect(noun.code).toBe(2);
    expect(noun.stderr).toBe("lic: unknown command 'kyes' (did you mean keys?)\n");
    const verb = await runCli(['resources', 'lsit']);
    expect(verb.code).toBe(2);
    expect(verb.stderr).toBe("lic: unknown command 'lsit' (did you mean list?)\n");
  });

  it('an unknown option is named (with the nearest) before a missing required one', async () => {
    const r = await runCli(['keys', 'create', '--prem', '7']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("lic: unknown option '--prem' (did you mean --perm?)\n");
    // the required check still runs when nothing is unknown, with commander's own words
    const missing = await runCli(['keys', 'create', '--name', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("lic: required option '--perm <perm>' not specified\n");
    // a global flag near the verb's is suggested too
    const g = await runCli(['keys', 'list', '--verbos']);
    expect(g.stderr).toBe("lic: unknown option '--verbos' (did you mean --verbose?)\n");
  });

  it('a list missing its required option is one lic: line, exit 2', async () => {
    const r = await runCli(['orders', 'list']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe("lic: required option '--customer <id>' not specified\n");
  });

  it('lic help with an unknown topic or command suggests the nearest, exit 2, and prints no help', async () => {
    const topic = await runCli(['help', 'filter']);
    expect(topic.code).toBe(2);
    expect(topic.stdout).toBe('');
    expect(topic.stderr).toBe("lic: unknown command or help topic 'filter' (did you mean filters?)\n");
    const verb = await runCli(['help', 'keys', 'lsit']);
    expect(verb.code).toBe(2);
    expect(verb.stderr).toBe("lic: unknown command 'keys lsit' (did you mean list?)\n");
    const none = await runCli(['help', 'zzzzzz']);
    expect(none.stderr).toBe("lic: unknown command or help topic 'zzzzzz'\n");
    // a known path still prints its help
    const ok = await runCli(['help', 'keys', 'list']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('Usage: lic keys list|ls [options]');
  });

  it('--help still wins over a missing required option', async () => {
    const r = await runCli(['keys', 'create', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--perm <perm>');
  });

  it('serve --help gives the default port once', async () => {
    const r = await runCli(['serve', '--help']);
    expect(r.stdout.match(/default:? 8765/g)).toEqual(['default: 8765']);
  });
});
