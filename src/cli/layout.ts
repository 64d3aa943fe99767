/**
 * The one text layout of what lic prints for people on a terminal (docs/output-and-scripts.md,
 * "Terminal width"): help pages, help topics, notices, `lic serve`'s start text and record
 * views wrap at the terminal's width (80 when it is unknown or not a terminal), at spaces
 * only, so a word, a flag or a path is never broken, each line's continuation under its
 * own text (a hanging indent). Data is never wrapped off a terminal.
 */

/** Display width of plain text: code points, ANSI colour codes not counted (help and notices are ASCII but for `…`). */
function width(s: string): number {
  return [...s.replace(/\x1b\[[0-9;]*m/g, '')].length;
}

/** `term  description` (an option, a command, a variable, an exit code): its continuation goes under the description. */
const TERM_LINE = /^(\s*\S(?:\S| (?! ))*\s{2,})\S/;
/** A command line of an example (`lic …`, `VAR=x lic …`, `set -o pipefail; lic …`): continued with ` \` so it can still be pasted. */
const COMMAND_LINE = /^\s+(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:lic|set|export)\s/;

/**
 * The column a line's continuation starts at: the description of a `term  description`
 * line, the text after a list bullet or `Usage: `, else the line's own indent.
 */
function hangingIndent(line: string): number {
  const indent = line.length - line.trimStart().length;
  // a notice (`lic: …`, `lic serve: …`) continues under its first word, as serve's own continuation lines
  if (/^lic(?: [a-z]+)?: /.test(line)) return 2;
  const usage = /^\s*Usage: /.exec(line);
  if (usage) return usage[0].length;
  const term = TERM_LINE.exec(line);
  if (term) return term[1]!.length;
  const bullet = /^\s*(?:[-*•]|\d+\.)\s+/.exec(line);
  return bullet ? bullet[0].length : indent;
}

/**
 * The words of a shell command line, a quoted string being one word however many spaces it
 * holds, and a trailing `# comment` one word too (after a ` \` continuation it still ends the line).
 */
function shellWords(s: string): string[] {
  const comment = /(?:^|\s)(#[^'"]*)$/.exec(s);
  const command = comment ? s.slice(0, comment.index) : s;
  const words = command.match(/(?:[^\s'"]+|'[^']*'|"(?:\\.|[^"\\])*")+/g) ?? [];
  return comment ? [...words, comment[1]!.trimEnd()] : words;
}

/**
 * `words` packed into lines of at most `cols` columns: the first starts with `first`, the
 * others with `indent` spaces; `end` (` \`) closes every line but the last. A word longer
 * than a line stays whole, on a line of its own.
 */
function pack(words: readonly string[], first: string, indent: number, cols: number, end = ''): string[] {
  const lines: string[] = [];
  let cur = first;
  let empty = true;
  for (const w of words) {
    const sep = empty ? '' : ' ';
    if (!empty && width(cur) + sep.length + width(w) + end.length > cols) {
      lines.push(cur + end);
      cur = ' '.repeat(indent) + w;
    } else cur += sep + w;
    empty = false;
  }
  lines.push(cur);
  return lines;
}

/**
 * `text` wrapped to `cols` columns at spaces, a word wider than the line kept whole; what
 * fits is left as written, so wrapping twice changes nothing:
 * - a paragraph (lines of one indent, none a `term  description` line) with a line too wide
 *   is reflowed as a whole, so text written pre-wrapped at another width reads evenly;
 * - any other line too wide continues under its text (hangingIndent);
 * - a command line of an example (under `Examples:`, or starting `lic`) is continued with
 *   ` \` and 4 more spaces, breaking only between shell words, so it can still be pasted.
 */
export function wrapText(text: string, cols: number): string {
  if (!text.includes('\n') && width(text) <= cols) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  let examples = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = line.length - line.trimStart().length;
    // an `Examples:` heading starts the command lines of an example; a blank line or the next heading ends them
    if (line.trim() === '' || indent === 0) examples = /\bExamples?:$/.test(line);
    if (width(line) <= cols && !paragraphTooWide(lines, i, cols)) {
      out.push(line);
      continue;
    }
    if ((examples && indent > 0) || COMMAND_LINE.test(line)) {
      out.push(...pack(shellWords(line.slice(indent)), ' '.repeat(indent), indent + 4, cols, ' \\'));
      continue;
    }
    // the paragraph this line starts: the plain lines after it at its indent
    let j = i + 1;
    while (j < lines.length && isProse(lines[j]!, indent)) j++;
    const hang = hangingIndent(line);
    const head = line.slice(0, hang);
    const words = [line.slice(hang), ...lines.slice(i + 1, j)].join(' ').split(/\s+/).filter(Boolean);
    // a hanging indent that leaves less than 20 columns: continue under the line's own indent instead
    const under = cols - hang >= 20 ? hang : indent;
    out.push(...pack(words, head, under, cols).map((l) => l.trimEnd()));
    i = j - 1;
  }
  return out.join('\n');
}

/** A line that continues a paragraph at `indent`: text at exactly that indent, not a `term  description` line or a list item. */
function isProse(line: string, indent: number): boolean {
  if (line.trim() === '' || line.length - line.trimStart().length !== indent) return false;
  return (
    !TERM_LINE.test(line) &&
    !/^\s*(?:[-*•]|\d+\.)\s/.test(line) &&
    !COMMAND_LINE.test(line) &&
    !/^lic(?: [a-z]+)?: /.test(line) &&
    !/^\S.*:$/.test(line)
  );
}

/** Whether the paragraph that starts at line `i` (a line and the prose lines after it) has a line wider than `cols`. */
function paragraphTooWide(lines: readonly string[], i: number, cols: number): boolean {
  const line = lines[i]!;
  if (
    line.trim() === '' ||
    (i > 0 && isProse(line, lines[i - 1]!.length - lines[i - 1]!.trimStart().length) && lines[i - 1]!.trim() !== '')
  )
    return false;
  const indent = line.length - line.trimStart().length;
  for (let j = i + 1; j < lines.length && isProse(lines[j]!, indent); j++) if (width(lines[j]!) > cols) return true;
  return false;
}

/** Display columns of a string without ANSI codes: the tables' string-width (./table.ts displayWidth) in a record view. */
export type Measure = (s: string) => number;

/**
 * The longest start of `s` at most `room` columns wide, cut at a grapheme boundary
 * (Intl.Segmenter), and the rest; at least one grapheme when `atLeastOne`. For a word wider
 * than a whole line: broken, it continues under its own column, not where the terminal's
 * own wrap would put it.
 */
function fitting(s: string, room: number, measure: Measure, atLeastOne: boolean): [string, string] {
  let end = 0;
  for (const { segment, index } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)) {
    const next = index + segment.length;
    if (measure(s.slice(0, next)) > room && (end > 0 || !atLeastOne)) break;
    end = next;
  }
  return [s.slice(0, end), s.slice(end)];
}

/**
 * One field of a record view: `head` (`name  `), then `value` wrapped to `cols` columns.
 * Unlike wrapText, the value is data, shown as it is: it breaks only at a run of spaces
 * (that run alone dropped, as the break replaces it), every other space kept as written
 * (`aligned    columns` stays so); a line break in the value starts a new line; continuation
 * lines start under the value (at `head`'s width, or at 0 when that leaves less than 20
 * columns); a word wider than a whole line is broken between characters. Widths by
 * `measure`: a wide (CJK) character counts 2 with the tables' measure.
 */
export function wrapValue(head: string, value: string, cols: number, measure: Measure = width): string {
  const hang = measure(head);
  const indent = cols - hang >= 20 ? hang : 0;
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  value.split(/\r?\n/).forEach((segment, n) => {
    let cur = n === 0 ? head : pad;
    let curWidth = measure(cur);
    let content = false;
    let spaces = '';
    const newLine = () => {
      out.push(cur.trimEnd());
      cur = pad;
      curWidth = indent;
      content = false;
      // the break replaces the spaces before it
      spaces = '';
    };
    for (const token of segment.split(/( +)/)) {
      if (token === '') continue;
      if (token.startsWith(' ')) {
        spaces = token;
        continue;
      }
      const w = measure(token);
      // a word that does not fit goes to the next line; on the first, after the name alone, only if it fits there whole
      if (curWidth + measure(spaces) + w > cols && (content || (curWidth > indent && w <= cols - indent))) newLine();
      if (curWidth + measure(spaces) + w <= cols) {
        cur += spaces + token;
        curWidth += measure(spaces) + w;
      } else {
        // wider than the rest of an empty line: as much as fits, the rest on the lines below
        cur += spaces;
        curWidth += measure(spaces);
        let rest = token;
        while (rest !== '') {
          const [piece, after] = fitting(rest, cols - curWidth, measure, curWidth <= indent);
          if (piece === '') {
            newLine();
            continue;
          }
          cur += piece;
          curWidth += measure(piece);
          rest = after;
          if (rest !== '') newLine();
        }
      }
      spaces = '';
      content = true;
    }
    // trailing spaces, kept while they fit
    if (spaces !== '' && curWidth + measure(spaces) <= cols) cur += spaces;
    out.push(cur);
  });
  return out.join('\n');
}

/**
 * The width of a terminal in columns: a positive integer `COLUMNS` (env) wins, as in POSIX
 * shells and Python's shutil.get_terminal_size; else the stream's `columns`; else 80.
 */
export function terminalWidth(columns: number | undefined, env: Record<string, string | undefined>): number {
  const fromEnv = env.COLUMNS && /^\d+$/.test(env.COLUMNS.trim()) ? Number(env.COLUMNS.trim()) : 0;
  if (fromEnv > 0) return fromEnv;
  if (columns && columns > 0) return columns;
  return 80;
}

/** The width prose is wrapped at on a stream: the terminal's (terminalWidth) when it is one, else 80. */
export function proseWidth(stream: { isTTY: boolean; columns?: number }, env: Record<string, string | undefined>): number {
  return stream.isTTY ? terminalWidth(stream.columns, env) : 80;
}
