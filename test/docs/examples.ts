/**
 * The docs' examples as tests (docs/contributing.md, "The docs' examples are tests"): reads
 * the fenced shell blocks of a Markdown page, with the `<!-- example: … -->` markers before
 * them, into the commands a reader would type, what each should exit with and, where the page
 * shows it, what it should print; and compares output with ids of secrets, times and ports
 * normalised.
 */

/** One command of a page, as written, with what the page implies about it. */
export interface Example {
  /** the page, e.g. `docs/commands.md` */
  doc: string;
  /** 1-based line of the command in the page */
  line: number;
  /** the command exactly as written (continuation lines joined, a `$ ` prompt dropped) */
  command: string;
  /** the exit status the page implies: 0 unless a comment says `exit N` */
  exit: number;
  /** the output the page shows for it (stdout and stderr as on a terminal), or undefined when none is shown */
  output?: string;
  /** run on a pseudo-terminal this wide (the block's `tty COLS` marker) */
  ttyCols?: number;
  /** the command follows until Ctrl-C: interrupt it this many seconds after it printed something */
  interruptAfter?: number;
  /** not run, and why (a `skip` marker) */
  skip?: string;
  /** run, expected not to behave as documented yet, and the defect that makes it so (a `fails` marker) */
  fails?: string;
  /** run, its output not compared, and why (an `output-varies` marker) */
  outputVaries?: string;
  /** what the reader types at the command's prompt (an `answer` marker; runs it on an 80-column pseudo-terminal), Enter added */
  answer?: string;
  /** files the page shows (a `file NAME` marker before a block) to write into the working directory before this example runs */
  files?: { name: string; content: string }[];
}

/** A marker that names no reason, or names a command the block lacks: the page is wrong. */
export class MarkerError extends Error {
  override name = 'MarkerError';
}

/** Languages of fenced blocks holding commands; `text` and bare blocks hold commands only as a `$ ` transcript. */
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

interface Marker {
  kind: 'skip' | 'fails' | 'output-varies' | 'tty' | 'interrupt' | 'file' | 'answer';
  /** commands containing this text, or every command of the block */
  match?: string;
  reason: string;
  line: number;
}

/**
 * Parses one marker: `skip: REASON`, `skip "TEXT": REASON`, `fails "TEXT": DEFECT`,
 * `output-varies: REASON`, `tty COLS`, `interrupt "TEXT" after N s`, `answer "TEXT": INPUT`,
 * `file NAME`.
 */
function parseMarker(body: string, doc: string, line: number): Marker {
  const at = `${doc}:${line}`;
  let m = /^file ([\w.-]+)$/.exec(body);
  if (m) return { kind: 'file', reason: m[1]!, line };
  m = /^tty (\d+)$/.exec(body);
  if (m) return { kind: 'tty', reason: m[1]!, line };
  m = /^interrupt(?: "([^"]+)")? after (\d+(?:\.\d+)?) ?s$/.exec(body);
  if (m) return { kind: 'interrupt', match: m[1], reason: m[2]!, line };
  m = /^answer "([^"]+)": (.+)$/.exec(body);
  if (m) return { kind: 'answer', match: m[1], reason: m[2]!, line };
  m = /^(skip|fails|output-varies)(?: "([^"]+)")?:\s*(.*)$/.exec(body);
  if (!m)
    throw new MarkerError(`${at}: unknown example marker "${body}" (skip, fails, output-varies, tty, interrupt: docs/contributing.md)`);
  const reason = m[3]!.trim();
  if (reason.length < 8) throw new MarkerError(`${at}: the marker "${body}" gives no reason; say why the example can't run as written`);
  return { kind: m[1] as Marker['kind'], match: m[2], reason, line };
}

/** Splits a command line's trailing shell comment off (an unquoted ` #`). */
function commentOf(command: string): string {
  let quote = '';
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === quote) quote = '';
      else if (ch === '\\' && quote === '"') i++;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(command[i - 1]!))) return command.slice(i + 1);
  }
  return '';
}

/** The exit status a command's comment states: `# … exit N` at its end or `(exit N)`; else 0. */
function exitOf(command: string): number {
  const m = /(?:\(exit (\d+)\)|\bexit (\d+))\s*$/.exec(commentOf(command).trim()) ?? /\(exit (\d+)\)/.exec(commentOf(command));
  return m ? Number(m[1] ?? m[2]) : 0;
}

interface Block {
  lang: string;
  /** line of the opening fence (1-based) */
  line: number;
  lines: string[];
  markers: Marker[];
}

function blocksOf(text: string, doc: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let pending: Marker[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const marker = /^<!--\s*example:\s*([\s\S]*?)\s*-->\s*$/.exec(l);
    if (marker) {
      pending.push(parseMarker(marker[1]!, doc, i + 1));
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(l);
    if (fence) {
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
      blocks.push({ lang: fence[1]!, line: start + 1, lines: body, markers: pending });
      pending = [];
      continue;
    }
    if (l.trim() !== '' && pending.length) {
      throw new MarkerError(`${doc}:${pending[0]!.line}: an example marker must come right before a fenced block`);
    }
  }
  return blocks;
}

/** Whether a block is a transcript: commands after `$ `, each followed by what it printed. */
const isTranscript = (b: Block): boolean => b.lines.find((l) => l.trim() !== '')?.startsWith('$ ') ?? false;

/**
 * The examples of one page, in reading order. A `sh`/`bash`/`console` block is either a
 * transcript (lines starting `$ ` are commands, the lines after each its output) or one
 * command per line (blank and `#` lines skipped, `\` continues a line), and then a `text`
 * block right after it is the output of its one command. A `text` or bare block that is a
 * transcript counts too. Throws MarkerError for a marker without a reason or one that names
 * no command of its block.
 */
export function examplesOf(text: string, doc: string): Example[] {
  const blocks = blocksOf(text, doc);
  const out: Example[] = [];
  let files: Example['files'] = [];
  for (let bi = 0; bi < blocks.length; bi++) {
    const b = blocks[bi]!;
    const transcript = isTranscript(b);
    const file = b.markers.find((m) => m.kind === 'file');
    if (file) {
      // a file the page shows (a state file, say): written before the page's next example runs
      files.push({ name: file.reason, content: b.lines.join('\n') + '\n' });
      continue;
    }
    // a console block without a `$ ` line shows output only (an error, say), as a text block does
    if ((!SHELL.has(b.lang) || b.lang === 'console') && !transcript) {
      if (b.markers.length) throw new MarkerError(`${doc}:${b.markers[0]!.line}: an example marker before a block that holds no commands`);
      continue;
    }
    const found: Example[] = [];
    if (transcript) {
      let cur: Example | undefined;
      b.lines.forEach((l, j) => {
        if (l.startsWith('$ ')) {
          cur = { doc, line: b.line + 1 + j, command: l.slice(2), exit: exitOf(l.slice(2)), output: '' };
          found.push(cur);
        } else if (cur) cur.output += `${l}\n`;
      });
    } else {
      let pendingLine: { line: number; text: string } | undefined;
      b.lines.forEach((l, j) => {
        if (pendingLine) pendingLine.text += `\n${l}`;
        else if (l.trim() === '' || l.trim().startsWith('#')) return;
        else pendingLine = { line: b.line + 1 + j, text: l };
        if (!/\\$/.test(l)) {
          found.push({ doc, line: pendingLine.line, command: pendingLine.text, exit: exitOf(pendingLine.text) });
          pendingLine = undefined;
        }
      });
      const next = blocks[bi + 1];
      if (next && next.lang === 'text' && !isTranscript(next) && found.length === 1 && !next.markers.length) {
        // the output block must follow with only prose-free blank lines between
        const between = text.split('\n').slice(b.line + b.lines.length + 1, next.line - 1);
        if (between.every((l) => l.trim() === '')) found[0]!.output = next.lines.join('\n') + '\n';
      }
    }
    for (const m of b.markers) {
      const targets = m.match === undefined ? found : found.filter((e) => e.command.includes(m.match!));
      if (m.match !== undefined && targets.length === 0) {
        throw new MarkerError(`${doc}:${m.line}: the marker names "${m.match}", which no command of the block below contains`);
      }
      for (const e of targets) {
        if (m.kind === 'skip') e.skip = m.reason;
        else if (m.kind === 'fails') e.fails = m.reason;
        else if (m.kind === 'output-varies') e.outputVaries = m.reason;
        else if (m.kind === 'tty') e.ttyCols = Number(m.reason);
        else if (m.kind === 'answer') {
          e.answer = m.reason;
          e.ttyCols ??= 80;
        } else e.interruptAfter = Number(m.reason);
      }
    }
    if (found.length && files.length) {
      found[0]!.files = files;
      files = [];
    }
    out.push(...found);
  }
  if (files.length) throw new MarkerError(`${doc}: a file marker with no example after it`);
  return out;
}

/**
 * Output as compared: colour codes dropped, a line rewritten after a carriage return kept as rewritten, API keys (`api_…`, whole,
 * masked or cut to their prefix), RFC 3339 times, dates and local times, ports of
 * 127.0.0.1/localhost and the reader's home directory (`home` as `/home/me`) made
 * placeholders, runs of blanks one space, trailing blanks and blank lines at the end dropped.
 */
function normaliseOutput(s: string, home?: string): string {
  // a terminal's carriage return rewrites its line (a progress bar): what stays is the text after the last one
  let t = s
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/\r+\n/g, '\n')
    .replace(/^.*\r/gm, '');
  if (home) t = t.split(home).join('/home/me');
  return t
    .replace(/api_[A-Za-z0-9•]+…?/g, 'api_…')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?/g, '<time>')
    .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}Z?/g, '<time>')
    .replace(/\d{4}-\d{2}-\d{2}/g, '<date>')
    .replace(/(127\.0\.0\.1|localhost):\d+/g, '$1:<port>')
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

/**
 * Whether `actual` is what the page shows as `expected`, both normalised: line for line,
 * where a line of the page that is only `…` stands for any number of lines (an output the
 * page abridges, and says so). Returns undefined when it matches, else the first difference.
 */
export function compareOutput(expected: string, actual: string, home?: string): string | undefined {
  const want = normaliseOutput(expected).split('\n');
  const got = normaliseOutput(actual, home).split('\n');
  const match = (w: number, g: number): boolean => {
    if (w === want.length) return g === got.length;
    if (want[w]!.trim() === '…') {
      for (let k = g; k <= got.length; k++) if (match(w + 1, k)) return true;
      return false;
    }
    return g < got.length && want[w] === got[g] && match(w + 1, g + 1);
  };
  if (match(0, 0)) return undefined;
  let i = 0;
  while (i < want.length && i < got.length && want[i] === got[i]) i++;
  return `line ${i + 1}: the page shows ${JSON.stringify(want[i] ?? '(end)')}, lic printed ${JSON.stringify(got[i] ?? '(end)')}`;
}
