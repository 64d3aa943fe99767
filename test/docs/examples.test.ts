/**
 * Every command example of README.md and docs/*.md (not the generated reference) runs here,
 * as written, through bash, with this build's `lic` first on the PATH, against a fresh
 * `lic serve --seed demo` per page (docs/contributing.md, "The docs' examples are tests"):
 * each must exit as the page implies, and print what the page shows where it shows output.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAssembly, ECMA_KEY, MODULE_ROW } from '../helpers/dotnet-assembly.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { BIN, hasScript, LIC_NODE } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';
import { readStrongNameKey } from '../../src/dotnet/strong-name.js';
import { compareOutput, examplesOf, MarkerError, type Example } from './examples.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'reference.md')
    .sort()
    .map((f) => `docs/${f}`),
];

/** Whether `jq` (which some examples pipe to) is on this machine. */
const hasJq = (() => {
  try {
    execFileSync('jq', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** What this machine lacks to run an example as written (it is then skipped, saying so), or undefined. */
function missingTool(e: Example): string | undefined {
  if (e.ttyCols && !hasScript) return 'util-linux `script` (the pseudo-terminal) is not installed';
  if (/\bjq\b/.test(e.command) && !hasJq) return '`jq` is not installed';
  return undefined;
}

/** Every page's examples; a page whose markers are wrong gives its error instead. */
const parsed = PAGES.map((doc) => {
  try {
    return { doc, examples: examplesOf(readFileSync(join(ROOT, doc), 'utf8'), doc) };
  } catch (e) {
    if (e instanceof MarkerError) return { doc, examples: [] as Example[], error: e.message };
    throw e;
  }
});

/** A third party's strong-name public key blob (any bytes: the token is their hash), for the assembly that no demo key signed. */
const OTHER_KEY = Uint8Array.from({ length: 160 }, (_, i) => (i * 37 + 11) & 0xff);

/** The files the examples name, as a reader would have them, in the reader's home (the working directory). */
function writeFixtures(home: string): void {
  const assets = join(ROOT, 'src/server/seed/assets');
  const snk = readFileSync(join(assets, 'demo-signing-key.snk'));
  const demoKey = readStrongNameKey(snk).publicKey;
  copyFileSync(join(assets, 'demo-signing-key.snk'), join(home, 'Keys.snk'));
  copyFileSync(join(assets, 'new-license-email.html'), join(home, 'new-license-email.html'));
  // a company's CA certificate (self-signed, made with openssl for these docs)
  copyFileSync(join(ROOT, 'test/docs/fixtures/corp-ca.pem'), join(home, 'corp-ca.pem'));
  // an API key kept in a file, to give to `lic profile add --api-key-stdin`
  writeFileSync(join(home, 'key.txt'), 'api_0123456789abcdefghijklmnopqrstuv\n', { mode: 0o600 });
  // a PKCS #12 file's bytes: lic stores them as given (only RSA/SNK data is read)
  writeFileSync(join(home, 'key.pfx'), Buffer.from('3082', 'hex'));
  const dll = (name: string, version: [number, number, number, number], publicKey?: Uint8Array, culture?: string) =>
    buildAssembly({ name, version, publicKey, culture, tables: { before: { 0: MODULE_ROW } } });
  mkdirSync(join(home, 'bin/Release'), { recursive: true });
  writeFileSync(join(home, 'bin/Release/MyLib.dll'), dll('MyLib', [1, 0, 0, 0], demoKey));
  writeFileSync(join(home, 'MyLib.dll'), dll('MyLib', [1, 1, 0, 0], demoKey));
  writeFileSync(join(home, 'Contoso.Widgets.dll'), dll('Contoso.Widgets', [3, 2, 0, 0], OTHER_KEY));
  const rel = join(home, 'release/net8.0');
  mkdirSync(join(rel, 'de'), { recursive: true });
  writeFileSync(join(rel, 'Contoso.Widgets.dll'), dll('Contoso.Widgets', [3, 2, 0, 0], OTHER_KEY));
  writeFileSync(join(rel, 'de/Contoso.Widgets.dll'), dll('Contoso.Widgets', [3, 2, 0, 0], OTHER_KEY));
  writeFileSync(join(rel, 'System.Xml.Linq.dll'), dll('System.Xml.Linq', [4, 0, 0, 0], ECMA_KEY));
  writeFileSync(join(rel, 'MyApp.deps.json'), '{}\n');
  writeFileSync(join(rel, 'libnative.dll'), Buffer.from('\x7fELF\x02\x01\x01\0', 'latin1'));
  writeFileSync(
    join(home, 'broken.ndjson'),
    [
      { name: 'New license', type: 'email', code: 'email-new-license', description: '', source: '', dataFormat: 'html', data: 'PGgxPg==' },
      { name: 'Copy', type: 'email', code: 'email-new-license', description: '', source: '', dataFormat: 'html', data: 'PGgxPg==' },
    ]
      .map((r) => JSON.stringify(r))
      .concat(['{"name": "cut off'])
      .join('\n') + '\n',
  );
}

/** The `lic` a reader has on the PATH: this build on the Node that runs the tests. */
function shimDir(): string {
  const dir = tempDir('lic-docs-bin-');
  writeFileSync(join(dir, 'lic'), `#!/bin/sh\nexec '${LIC_NODE}' '${BIN}' "$@"\n`);
  chmodSync(join(dir, 'lic'), 0o755);
  return dir;
}

interface Outcome {
  code: number | null;
  output: string;
}

/** Runs one example through bash (or `script`'s pseudo-terminal), stdout and stderr in one stream as a terminal shows them. */
function run(e: Example, env: Record<string, string>, cwd: string): Promise<Outcome> {
  const script = e.ttyCols
    ? ['script', ['-qefc', `stty cols ${e.ttyCols} rows 50; ${e.command}`, '/dev/null']]
    : ['bash', ['-c', `exec 2>&1\n${e.command}`]];
  return new Promise((resolve, reject) => {
    const child = spawn(script[0] as string, script[1] as string[], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const kill = (sig: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        /* gone already */
      }
    };
    const timers = [setTimeout(() => kill('SIGKILL'), 30_000)];
    if (e.answer !== undefined) {
      // typed once the prompt shows (@inquirer's start with "?"), Enter as a terminal sends it
      const poll = setInterval(() => {
        if (!output.includes('?')) return;
        clearInterval(poll);
        timers.push(setTimeout(() => child.stdin.write(`${e.answer}\r`), 100));
      }, 25);
      timers.push(poll);
    } else child.stdin.end();
    if (e.interruptAfter !== undefined) {
      // Ctrl-C as a reader would press it: once something was printed, after a moment more
      const started = Date.now();
      const poll = setInterval(() => {
        if (output === '' && Date.now() - started < 15_000) return;
        clearInterval(poll);
        timers.push(setTimeout(() => kill('SIGINT'), e.interruptAfter! * 1000));
      }, 50);
      timers.push(poll);
    }
    child.on('error', reject);
    child.on('close', (code) => {
      for (const t of timers) clearTimeout(t);
      child.stdin.destroy();
      resolve({ code, output });
    });
  });
}

interface PageRun {
  home: string;
  env: Record<string, string>;
  results: Map<Example, Outcome>;
}

const runs = new Map<string, PageRun>();
/** Wall time of each page's run, for the summary line (a figure, never asserted). */
const seconds = new Map<string, number>();
const services: TestService[] = [];

/** Runs one page's examples in order against its own demo service (and an empty one as profile `prod`). */
async function runPage(doc: string, examples: Example[], bin: string, cacheDir: string): Promise<void> {
  const started = Date.now();
  const demo = await startTestService({ seed: 'demo' });
  const empty = await startTestService();
  services.push(demo, empty);
  const home = tempDir('lic-docs-home-');
  writeFixtures(home);
  const configDir = join(home, '.config/lic');
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const profile = (svc: TestService) => ({ baseUrl: svc.url, apiKey: svc.adminKey });
  writeFileSync(
    join(configDir, 'profiles.json'),
    JSON.stringify({ profiles: { local: profile(demo), staging: profile(demo), prod: profile(empty) }, defaultProfile: 'local' }),
    { mode: 0o600 },
  );
  const customer = demo.issuedKeys.find((k) => k.role === 'Customer')!.key;
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    SHELL: '/bin/bash',
    TERM: 'xterm',
    LANG: 'C.UTF-8',
    LIC_CONFIG_DIR: configDir,
    LIC_CACHE_DIR: cacheDir,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    // what the pages ask the reader to have at hand
    CUSTOMER_KEY: customer,
    KEY: demo.adminKey,
    PFX_PASSWORD: 'pfx-password',
  };
  const results = new Map<Example, Outcome>();
  runs.set(doc, { home, env, results });
  for (const e of examples) {
    for (const f of e.files ?? []) writeFileSync(join(home, f.name), f.content);
    if (!e.skip && !missingTool(e)) results.set(e, await run(e, env, home));
  }
  seconds.set(doc, (Date.now() - started) / 1000);
  // LIC_DOCS_EXAMPLES_OUT=DIR: what each example printed, to update a page from (docs/contributing.md)
  const dump = process.env.LIC_DOCS_EXAMPLES_OUT;
  if (dump) {
    const text = [...results].map(
      ([e, r]) => `== ${e.doc}:${e.line} (exit ${r.code}, page: ${e.exit})\n$ ${e.command}\n${r.output.replace(/\r/g, '')}`,
    );
    mkdirSync(dump, { recursive: true });
    writeFileSync(join(dump, doc.replace(/\//g, '_') + '.txt'), text.join('\n'));
  }
}

const all = parsed.flatMap((p) => p.examples);

beforeAll(async () => {
  const bin = shimDir();
  const cacheDir = tempDir('lic-docs-cache-');
  const queue = parsed.filter((p) => p.examples.some((e) => !e.skip));
  // two pages at a time: each runs its examples one after another, as a reader would
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) await runPage(p.doc, p.examples, bin, cacheDir);
  };
  await Promise.all([worker(), worker()]);
}, 300_000);

afterAll(async () => {
  await Promise.all(services.map((s) => s.close()));
  const tally = (reasons: (string | undefined)[]) => {
    const by = new Map<string, number>();
    for (const r of reasons) if (r) by.set(r, (by.get(r) ?? 0) + 1);
    return [...by].map(([reason, n]) => `    ${n} × ${reason}`).join('\n') || '    none';
  };
  const ran = all.filter((e) => !e.skip && !missingTool(e));
  const missing = all.filter((e) => !e.skip && missingTool(e));
  console.log(
    `doc examples: ${ran.length} ran (${ran.filter((e) => e.output !== undefined && !e.outputVaries).length} with their output compared), ` +
      `${all.length - ran.length - missing.length} marked not to run, ${ran.filter((e) => e.fails).length} expected to fail for now` +
      (missing.length ? `, ${missing.length} not run for want of a tool` : '') +
      `\n  marked, by reason:\n${tally(all.map((e) => e.skip))}\n  expected to fail, by defect:\n${tally(ran.map((e) => e.fails))}` +
      (missing.length ? `\n  not run here:\n${tally(missing.map(missingTool))}` : '') +
      `\n  seconds per page: ${[...seconds].map(([doc, t]) => `${doc} ${t.toFixed(1)}`).join(', ')}`,
  );
});

/** Why an example's run is not what its page says, or undefined when it is. */
function mismatch(e: Example, r: Outcome, home: string): string | undefined {
  if (r.code !== e.exit) return `exit ${r.code}, the page implies ${e.exit}; it printed:\n${r.output}`;
  // a listing that finds nothing in the demo (a date outside its 30 days, an id it lacks) teaches nothing
  if (e.exit === 0 && /^(\w+=\S+ )*lic \w+ (list|get|show|tail)\b[^|>]*$/.test(e.command) && r.output.trim() === '')
    return 'it printed nothing: a read example should find something in the demo data';
  if (e.output !== undefined && !e.outputVaries) {
    const diff = compareOutput(e.output, r.output, home);
    if (diff) return `${diff}\nit printed:\n${r.output}`;
  }
  return undefined;
}

describe('the harness', () => {
  it('normalises keys, times and ports, and lets a line of … stand for lines the page leaves out', () => {
    const printed = 'key api_5ri8e0u50ddoeg7jgihutws7\nat 2026-11-28T07:02:09.028Z on http://127.0.0.1:40687\nA\nB\nend\n';
    expect(compareOutput('key api_…\nat 2030-01-01T00:00:00.000Z on http://127.0.0.1:8765\n…\nend\n', printed)).toBeUndefined();
    expect(compareOutput('key api_…\nat 2030-01-01T00:00:00Z on http://127.0.0.1:8765\nA\nend\n', printed)).toMatch(/line 4/);
    expect(compareOutput('key api_…\nat <t> on http://127.0.0.1:8765\n…\nend\n', printed)).toMatch(/line 2/);
    // a progress bar a terminal rewrote in place leaves only its last text
    expect(compareOutput('12 requests in 0.1 s\n', '\x1b[2K 3/12 requests\r\x1b[K12 requests in 0.1 s\r\n')).toBeUndefined();
  });

  it('refuses a marker without a reason, or one naming a command its block lacks', () => {
    expect(() => examplesOf('<!-- example: skip: -->\n```sh\nlic keys list\n```\n', 'x.md')).toThrow(/gives no reason/);
    expect(() => examplesOf('<!-- example: skip "keys lst": a typo in the marker -->\n```sh\nlic keys list\n```\n', 'x.md')).toThrow(
      /no command of the block/,
    );
    expect(() => examplesOf('<!-- example: fails "list": -->\n```sh\nlic keys list\n```\n', 'x.md')).toThrow(/gives no reason/);
  });

  it('a page edit that breaks an example fails it: a changed output, a wrong exit status', async () => {
    const page = readFileSync(join(ROOT, 'docs/commands.md'), 'utf8');
    const { env, home } = runs.get('docs/commands.md')!;
    const keyInfo = (text: string) => examplesOf(text, 'docs/commands.md').find((e) => e.command === 'lic resources get 1' && e.output)!;
    const asWritten = keyInfo(page);
    expect(mismatch(asWritten, await run(asWritten, env, home), home)).toBeUndefined();
    const edited = keyInfo(page.replace(/^keySize( +)1024$/m, 'keySize$12048'));
    expect(mismatch(edited, await run(edited, env, home), home)).toMatch(/keySize 2048/);
    // an exit status the page states, and one it leaves at 0
    const [unstated, stated] = examplesOf('```sh\nlic keys delete 99999 --yes\nlic keys delete 99999 --yes   # exit 4\n```\n', 'x.md');
    expect(mismatch(unstated!, await run(unstated!, env, home), home)).toMatch(/^exit 4, the page implies 0/);
    expect(mismatch(stated!, await run(stated!, env, home), home)).toBeUndefined();
  });
});

describe('the pages and their markers', () => {
  it.each(parsed)('$doc: every marker names a reason and a command of its block', ({ error }) => {
    expect(error).toBeUndefined();
  });

  it('finds the examples of every page that has any', () => {
    for (const doc of ['README.md', 'docs/commands.md', 'docs/state.md', 'docs/configuration.md', 'docs/output-and-scripts.md'])
      expect(parsed.find((p) => p.doc === doc)!.examples.length, doc).toBeGreaterThan(0);
  });
});

for (const { doc, examples } of parsed.filter((p) => p.examples.length)) {
  describe(doc, () => {
    for (const e of examples) {
      const name = `${e.line}: ${e.command.split('\n')[0]}`;
      if (e.skip) it.skip(`${name} (marked: ${e.skip})`, () => {});
      else if (missingTool(e)) it.skip(`${name} (not run here: ${missingTool(e)})`, () => {});
      else if (e.fails) {
        it.fails(`${name} (expected to fail for now: ${e.fails})`, () => {
          const { home, results } = runs.get(doc)!;
          expect(mismatch(e, results.get(e)!, home)).toBeUndefined();
        });
      } else {
        it(name, () => {
          const { home, results } = runs.get(doc)!;
          expect(mismatch(e, results.get(e)!, home)).toBeUndefined();
        });
      }
    }
  });
}
