/**
 * The command reference, rendered from the commander tree that `lic` itself parses with
 * (buildProgram), so docs/reference.md and the man page can't drift from `--help`:
 * every visible command with its usage, description, arguments, options and the text its
 * help prints after them (examples). The help topics (ENVIRONMENT, EXIT STATUS, FILTERS)
 * come from src/cli/help-topics.ts. Written by scripts/gen-docs.mjs (`npm run docs`);
 * test/docs/reference.test.ts fails when docs/reference.md or man/lic.1 is stale.
 */
import { Help, type Command } from 'commander';
import type { Context } from '../src/cli/context.js';
import { HELP_TOPICS } from '../src/cli/help-topics.js';
import { buildProgram } from '../src/cli/program.js';

/** The marker comments around the generated part of docs/reference.md. */
export const REFERENCE_BEGIN = '<!-- BEGIN GENERATED: command reference (npm run docs; do not edit by hand) -->';
export const REFERENCE_END = '<!-- END GENERATED: command reference -->';

interface Item {
  term: string;
  description: string;
}

/** One command of the tree, as its `--help` shows it. */
export interface CommandDoc {
  /** `lic keys create` */
  name: string;
  usage: string;
  description: string;
  arguments: Item[];
  options: Item[];
  /** what the help prints after the options (notes and examples), trimmed; '' if none */
  after: string;
  /** has subcommands (a noun): listed, but its verbs carry the options */
  isGroup: boolean;
}

/** A context that never touches the outside world: the tree is only built and its help captured. */
function inertContext(sink: { text: string }): Context {
  const out = { write: (s: string) => ((sink.text += s), true), isTTY: false };
  return {
    env: {},
    stdout: out,
    stderr: out,
    stdin: { isTTY: false, readAll: () => Promise.resolve(Buffer.alloc(0)), chunks: async function* () {} },
    prompter: { confirm: () => Promise.resolve(false), secret: () => Promise.resolve('') },
    now: () => new Date(0),
    cwd: '.',
    dataDir: () => Promise.resolve('~/.local/share/lic'),
    onInterrupt: () => () => {},
    sleep: () => Promise.resolve(),
    keyring: () => Promise.reject(new Error('the command reference reads no keyring')),
  };
}

/** Walks the tree built by buildProgram; returns the root (`lic`) first, then every visible command depth first. */
export async function collectCommands(): Promise<CommandDoc[]> {
  const sink = { text: '' };
  const program = await buildProgram(inertContext(sink));
  const docs: CommandDoc[] = [];
  const walk = (cmd: Command, path: string[]) => {
    const help: Help = cmd.createHelp();
    // the help as printed, then the part after the option list: the texts addHelpText('after') adds
    sink.text = '';
    cmd.outputHelp();
    const full = sink.text;
    const info = cmd.helpInformation();
    const after = full.includes(info) ? full.slice(full.indexOf(info) + info.length).trim() : '';
    const subs = help.visibleCommands(cmd).filter((c) => c.name() !== 'help');
    docs.push({
      name: path.join(' '),
      usage: `${path.join(' ')} ${cmd.usage()}`.trim(),
      description: help.commandDescription(cmd),
      arguments: help.visibleArguments(cmd).map((a) => ({ term: help.argumentTerm(a), description: help.argumentDescription(a) })),
      options: help
        .visibleOptions(cmd)
        .filter((o) => o.long !== '--help')
        .map((o) => ({ term: help.optionTerm(o), description: help.optionDescription(o) })),
      after,
      isGroup: subs.length > 0,
    });
    for (const sub of subs) walk(sub, [...path, sub.name()]);
  };
  walk(program, ['lic']);
  return docs;
}

/** `|` and newlines would break a Markdown table cell. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** The command reference (Markdown) of docs/reference.md, between REFERENCE_BEGIN and REFERENCE_END. */
export function renderReference(docs: CommandDoc[]): string {
  const [root, ...commands] = docs;
  const lines: string[] = [REFERENCE_BEGIN, '', '## Command reference', ''];
  lines.push(
    'Generated from the command tree (`npm run docs`); `lic COMMAND --help` prints the same, with examples. ' +
      'Global options, accepted by every command:',
    '',
    '| option | |',
    '|---|---|',
    ...root!.options.map((o) => `| \`${cell(o.term)}\` | ${cell(o.description)} |`),
    '',
  );
  for (const c of commands) {
    if (c.isGroup) {
      lines.push(`### \`${c.name}\``, '', c.description, '');
      continue;
    }
    lines.push(`### \`${c.usage}\``, '', c.description, '');
    const rows = [...c.arguments, ...c.options];
    if (rows.length)
      lines.push('| argument / option | |', '|---|---|', ...rows.map((o) => `| \`${cell(o.term)}\` | ${cell(o.description)} |`), '');
  }
  lines.push(REFERENCE_END);
  return lines.join('\n');
}

/** docs/reference.md (`readme`) with its generated reference replaced by `reference`; throws when the markers are missing. */
export function spliceReference(readme: string, reference: string): string {
  const a = readme.indexOf(REFERENCE_BEGIN);
  const b = readme.indexOf(REFERENCE_END);
  if (a < 0 || b < a) throw new Error(`docs/reference.md: the markers ${REFERENCE_BEGIN} … ${REFERENCE_END} are missing`);
  return readme.slice(0, a) + reference + readme.slice(b + REFERENCE_END.length);
}

/** Escapes text for roff (man(7)): backslashes, hyphens as \\- (option dashes), non-ASCII characters, and a leading dot or quote that would read as a request. */
function roff(s: string): string {
  return (
    s
      .replace(/\\/g, '\\e')
      .replace(/-/g, '\\-')
      // groff's named Unicode escapes (groff_char(7)): … § × keep their shape on any input encoding
      .replace(/[^\x00-\x7f]/gu, (ch) => `\\[u${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
      .split('\n')
      .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
      .join('\n')
  );
}

/** A preformatted block (notes, examples, topic texts) as printed by `--help`. */
function verbatim(text: string): string[] {
  return ['.PP', '.nf', '.RS 4', roff(text), '.RE', '.fi'];
}

/** The text of a help topic without its title line (the section heading says it). */
function topicBody(name: string): string {
  const text = HELP_TOPICS[name]!.text;
  return text
    .slice(text.indexOf('\n') + 1)
    .replace(/^\n+/, '')
    .trimEnd();
}

/** man/lic.1 (roff, man(7) macros): NAME, SYNOPSIS, DESCRIPTION, GLOBAL OPTIONS, COMMANDS, ENVIRONMENT, EXIT STATUS, FILTERS, FILES, EXAMPLES, SEE ALSO. */
export function renderManPage(version: string, docs: CommandDoc[]): string {
  const [root, ...commands] = docs;
  const options = (items: Item[]) => items.flatMap((o) => ['.TP', `.B ${roff(o.term)}`, roff(o.description)]);
  const out: string[] = [
    `.\\" Generated from the command tree by scripts/gen-docs.mjs (npm run docs); do not edit.`,
    `.TH LIC 1 "" "lic ${version}" "User Commands"`,
    '.SH NAME',
    `lic \\- ${roff(root!.description.replace(/\.$/, '').replace(/^A/, 'a'))}`,
    '.SH SYNOPSIS',
    '.B lic',
    '.I NOUN VERB',
    '[\\fIoptions\\fR]',
    '.br',
    '.B lic serve',
    '[\\fIoptions\\fR]',
    '.br',
    '.B lic help',
    '[\\fINOUN\\fR|\\fITOPIC\\fR]',
    '.SH DESCRIPTION',
    roff(
      'lic is the command-line administration tool for a software-licensing service: API keys, resources ' +
        '(signing keys, e-mail templates), assemblies, the audit and transaction log, orders, license templates ' +
        "and customers' products. lic serve runs a local implementation of the same HTTP API.",
    ),
    '.PP',
    roff(
      'Data goes to standard output; notes, warnings and progress to standard error. Off a terminal there is no ' +
        'color and no prompt. Every write command takes --dry-run and -o json.',
    ),
    '.SH GLOBAL OPTIONS',
    ...options(root!.options),
    '.SH COMMANDS',
  ];
  for (const c of commands) {
    out.push(`.SS "${roff(c.isGroup ? c.name : c.usage)}"`, roff(c.description));
    if (c.isGroup) continue;
    out.push(...options([...c.arguments, ...c.options]));
    if (c.after) out.push(...verbatim(c.after));
  }
  out.push(
    '.SH ENVIRONMENT',
    ...verbatim(topicBody('environment')),
    '.SH EXIT STATUS',
    ...verbatim(topicBody('exit-codes')),
    '.SH FILTERS',
    ...verbatim(topicBody('filters')),
    '.SH FILES',
    '.TP',
    '.I ~/.config/lic/profiles.json',
    roff('the profile store (base URL, API key, network settings per profile), mode 0600; LIC_CONFIG_DIR moves it'),
    '.TP',
    '.I ~/.local/share/lic/lic.db',
    roff('the database of lic serve (SQLite, with its -wal and -shm files), mode 0600; --db or LIC_DATA_DIR moves it'),
    '.TP',
    '.I ~/.local/share/lic/lic.db.key',
    roff('the key sealing resource passwords in that database (unless LIC_SECRET_KEY is set); back it up apart from the database'),
    '.SH EXAMPLES',
    ...verbatim(
      [
        'lic serve --seed demo --db /tmp/demo.db     # a local service; saves profile "local"',
        'lic keys list',
        'lic keys create --name ci --perm rw --expires 90d -o json',
        'lic log list --since 24h --where \'Level = "Error"\' -o csv > errors.csv',
        'lic completion bash > ~/.local/share/bash-completion/completions/lic',
      ].join('\n'),
    ),
    '.SH SEE ALSO',
    roff('lic help environment, lic help exit-codes, lic help filters; lic COMMAND --help.'),
    '',
  );
  return out.join('\n');
}
