// The help pages bin/lic.js prints without loading dist/cli.cjs (dist/help.json), written by
// scripts/build.mjs from the bundle it has just built: each command line below is run through
// the bundle's own main() in a captured context and its output kept as it was printed. So the
// pages are those of the code being built (never a copy kept by hand), and bin/lic.js serves
// them only where they are byte for byte what the bundle would print (docs/architecture.md,
// "How a command runs"; test/cli/prebuilt-help.test.ts compares the two).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The width the pages are laid out at: what lic wraps help at off a terminal (src/cli/layout.ts,
 * proseWidth), and on a terminal of that many columns.
 */
const WIDTH = 80;

/**
 * The command lines served, for the root and each noun NAME: help asked for, or (`lic NAME`
 * alone) no verb given to a noun whose help lists verbs: commander answers that with the
 * noun's help. A command without verbs is never run here (`lic serve`, `lic doctor` would do
 * their work).
 */
function commandLines(nouns, nounHelp, topics) {
  const lines = [[], ['--help'], ['-h'], ['help'], ...topics.map((t) => ['help', t])];
  for (const n of nouns) {
    lines.push([n, '--help'], [n, '-h'], ['help', n]);
    if (/^Usage: lic \S+ \[options\] \[command\]\n/.test(nounHelp(n)) && nounHelp(n).includes('\nCommands:\n')) lines.push([n]);
  }
  return lines;
}

/** A stream of the captured context: `tty` a terminal of WIDTH columns or not. */
function capture(tty) {
  let text = '';
  return {
    stream: { write: (s) => ((text += s), true), isTTY: tty, columns: tty ? WIDTH : undefined, pipe: !tty, drain: async () => {} },
    text: () => text,
  };
}

/**
 * One run of `main(argv)` in a context with nothing of this machine in it but what is given
 * (`variant` changes every directory, the clock and the environment, so a page that shows any
 * of them differs between two variants and is not served).
 */
async function run(main, argv, tty, variant) {
  const out = capture(tty);
  const err = capture(tty);
  const dir = `/nonexistent/lic-help-${variant}`;
  const ctx = {
    env: { HOME: dir, LIC_HELP_VARIANT: String(variant) },
    stdout: out.stream,
    stderr: err.stream,
    stdin: {
      isTTY: tty,
      readAll: () => Promise.reject(new Error('no stdin while building help')),
      chunks: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('no stdin while building help')) }) }),
    },
    prompter: { confirm: () => Promise.reject(new Error('no prompt')), secret: () => Promise.reject(new Error('no prompt')) },
    now: () => new Date(Date.UTC(2000 + variant, variant, 1 + variant)),
    cwd: dir,
    configDir: `${dir}/config`,
    dataDir: `${dir}/data`,
    keyring: () => Promise.reject(new Error('no keyring while building help')),
    onInterrupt: () => () => {},
    sleep: () => Promise.resolve(),
  };
  const code = await main([...argv], ctx);
  return { code, stdout: out.text(), stderr: err.text() };
}

/**
 * The first word of each entry of the section of the root help under `heading` (`Commands:`:
 * the nouns, `help` aside; `Help topics (lic help TOPIC):` the topics).
 */
function listedIn(rootHelp, heading) {
  const section = new RegExp(`\n${heading.replace(/[()]/g, '\\$&')}\n([\\s\\S]*?)(?:\n\n|\n?$)`).exec(rootHelp);
  if (!section) throw new Error(`prebuilt help: no "${heading}" section in \`lic --help\``);
  return section[1]
    .split('\n')
    .filter((l) => /^ {2}[a-z]/.test(l))
    .map((l) => l.trim().split(/\s/)[0])
    .filter((n) => n !== 'help');
}

/**
 * dist/help.json's content for the bundle at `cliFile`: `{ width, texts, pages }`, where
 * pages[JSON.stringify(argv)] = `[fd, exitCode, index into texts, tty]` (fd 1 or 2, the one
 * stream written; tty: the same bytes on a terminal of `width` columns too). A command line
 * whose output depends on the environment, writes to both streams or to neither is left out.
 */
export async function prebuiltHelp(cliFile) {
  const { main } = createRequire(import.meta.url)(cliFile);
  const root = await run(main, ['--help'], false, 1);
  const nouns = listedIn(root.stdout, 'Commands:');
  const topics = listedIn(root.stdout, 'Help topics (lic help TOPIC):');
  const nounHelp = new Map();
  for (const n of nouns) nounHelp.set(n, (await run(main, [n, '--help'], false, 1)).stdout);
  const texts = [];
  const pages = {};
  for (const argv of commandLines(nouns, (n) => nounHelp.get(n), topics)) {
    const a = await run(main, argv, false, 1);
    const b = await run(main, argv, false, 2);
    const onTerminal = await run(main, argv, true, 1);
    const same = (x, y) => x.code === y.code && x.stdout === y.stdout && x.stderr === y.stderr;
    if (!same(a, b) || (a.stdout === '') === (a.stderr === '')) continue;
    const text = a.stdout || a.stderr;
    if (!texts.includes(text)) texts.push(text);
    pages[JSON.stringify(argv)] = [a.stdout ? 1 : 2, a.code, texts.indexOf(text), same(a, onTerminal)];
  }
  if (!pages['["--help"]']) throw new Error('prebuilt help: `lic --help` could not be prebuilt');
  return { width: WIDTH, texts, pages };
}

// `node scripts/prebuilt-help.mjs`: print which command lines dist/help.json serves
if (import.meta.url === `file://${process.argv[1]}`) {
  const help = JSON.parse(readFileSync(new URL('../dist/help.json', import.meta.url), 'utf8'));
  for (const [argv, [fd, code, , tty]] of Object.entries(help.pages))
    process.stdout.write(`lic ${JSON.parse(argv).join(' ')}\t→ fd ${fd}, exit ${code}${tty ? '' : ', pipes only'}\n`);
}
