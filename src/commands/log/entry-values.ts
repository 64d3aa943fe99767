/**
 * Reading a value out of a log entry (contract §6: `message`, `messageTemplate`, `level`,
 * `exception`, `properties` as a string) for `lic log top` and `lic log report`: the entry's
 * own fields, the exception's type, and a property by name — from `properties` as JSON (lic
 * serve), as Serilog's XML (`<properties><property key='K'>V</property>…`, the MSSqlServer
 * sink's default), or, when `properties` is empty or lacks it, from the message matched
 * against its template (the text between a `{Name}` hole's literals is its value; see
 * matchTemplate), so a service that sends neither still answers.
 */

/** The fields of an entry that are not properties, as `log top` names them. */
export const ENTRY_FIELDS = ['template', 'level', 'exception', 'message'] as const;

/** The wire fields (contract §6) one of `names` needs: what `select` asks for. */
export function fieldsNeeded(names: readonly string[]): string[] {
  const out = new Set<string>(['timeStamp']);
  for (const n of names) {
    const k = n.toLowerCase();
    if (k === 'template') out.add('messageTemplate');
    else if (k === 'level') out.add('level');
    else if (k === 'exception') out.add('exception');
    else if (k === 'message') out.add('message');
    else for (const f of ['properties', 'message', 'messageTemplate']) out.add(f);
  }
  return [...out];
}

/**
 * The exception's type: its first token (`System.InvalidOperationException: …` →
 * `System.InvalidOperationException`), as .NET's `ToString()` starts; undefined when empty.
 */
export function exceptionType(exception: unknown): string | undefined {
  if (typeof exception !== 'string') return undefined;
  const m = /^\s*([^\s:]+)/.exec(exception);
  return m ? m[1] : undefined;
}

/** A property value as text: strings as they are, numbers and booleans as written, structures as JSON. */
function valueText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const XML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * The character of a numeric reference (`&#…;`, `&#x…;`): a Unicode scalar value as it is;
 * U+FFFD (the replacement character) for one XML can't carry — 0, a surrogate, past
 * U+10FFFF — as HTML's parser does, so one bad reference costs one character, not the entry.
 */
function codePointText(n: number): string {
  return n > 0 && n <= 0x10ffff && (n < 0xd800 || n > 0xdfff) ? String.fromCodePoint(n) : '\ufffd';
}

/** XML text with its tags left out and its entities (`&lt;`, `&#39;`, `&#x27;`) decoded. */
function xmlText(s: string): string {
  return s
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_, e: string) =>
      e.startsWith('#x')
        ? codePointText(parseInt(e.slice(2), 16))
        : e.startsWith('#')
          ? codePointText(Number(e.slice(1)))
          : XML_ENTITIES[e]!,
    );
}

/**
 * The properties of an entry's `properties` string as name → text: a JSON object (lic
 * serve), or Serilog's XML (`<properties><property key='K'>V</property>…</properties>`:
 * nested `<structure>`/`<sequence>` elements read as their text); empty for anything else.
 */
export function parseProperties(properties: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof properties !== 'string') return out;
  const s = properties.trim();
  if (s.startsWith('{')) {
    try {
      const obj = JSON.parse(s) as unknown;
      if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
        for (const [k, v] of Object.entries(obj)) {
          const t = valueText(v);
          if (t !== undefined) out.set(k, t);
        }
      }
    } catch {
      // not JSON after all: no properties
    }
  } else if (s.startsWith('<')) {
    const re = /<property\s+key\s*=\s*(["'])(.*?)\1\s*>([\s\S]*?)<\/property>/g;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      const key = xmlText(m[2]!);
      if (!out.has(key)) out.set(key, xmlText(m[3]!));
    }
  }
  return out;
}

/**
 * A message template compiled: its literal text around the holes (`literals[i]` before
 * hole i, the last after the last hole; `{{`/`}}` already single braces) and each hole's name.
 */
export interface CompiledTemplate {
  literals: string[];
  names: string[];
}

/**
 * Compiles a Serilog message template: literal text matched as it is (`{{`/`}}` are
 * literal braces), each hole `{Name}`, `{@Name}`, `{$Name}`, `{Name,8}`, `{Name:format}`
 * a value to read (matchTemplate). Undefined for a template without holes.
 */
export function compileTemplate(template: string): CompiledTemplate | undefined {
  const names: string[] = [];
  const literals: string[] = [];
  let text = '';
  const re = /\{\{|\}\}|\{[@$]?([A-Za-z0-9_]+)(?:,-?\d+)?(?::[^}]*)?\}/g;
  let last = 0;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    text += template.slice(last, m.index);
    if (m[0] === '{{') text += '{';
    else if (m[0] === '}}') text += '}';
    else {
      names.push(m[1]!);
      literals.push(text);
      text = '';
    }
    last = m.index + m[0].length;
  }
  if (names.length === 0) return undefined;
  literals.push(text + template.slice(last));
  return { literals, names };
}

/**
 * The longest message (UTF-16 code units) matched against its template: a longer one is
 * read from its properties only. Matching is linear, so this bounds the work per entry
 * rather than guarding against a blow-up.
 */
const TEMPLATE_MESSAGE_MAX = 4096;

/**
 * The value of each hole of `t` in `message`, in linear time (no regex, no backtracking):
 * the message must start with the first literal and end with the last; each literal between
 * holes is the first occurrence after the previous one, and the text between two literals
 * is the hole's value. This is what the anchored regex `^lit(.*?)lit(.*?)…lit$` answers
 * (the leftmost occurrence of each literal is the one a lazy capture stops at, as any later
 * one leaves less room for the rest). Holes with no literal between them (`{A}{B}`) can't
 * be told apart: neither yields a value (the entry's properties still do). Undefined when
 * the message does not match; a hole's value is `undefined` when it can't be read.
 */
export function matchTemplate(t: CompiledTemplate, message: string): (string | undefined)[] | undefined {
  const { literals, names } = t;
  const head = literals[0]!;
  const tail = literals[names.length]!;
  if (message.length < head.length + tail.length || !message.startsWith(head) || !message.endsWith(tail)) return undefined;
  const end = message.length - tail.length;
  const values: (string | undefined)[] = [];
  let pos = head.length;
  for (let i = 0; i < names.length; i++) {
    const last = i === names.length - 1;
    const lit = literals[i + 1]!;
    const at = last ? end : message.indexOf(lit, pos);
    // not found, or running into the last literal: a later occurrence would too
    if (at < pos || (!last && at + lit.length > end)) return undefined;
    const ambiguous = (i > 0 && literals[i] === '') || (!last && lit === '');
    values.push(ambiguous ? undefined : message.slice(pos, at));
    pos = at + lit.length;
  }
  return values;
}

/** A captured value as a property: Serilog renders strings in double quotes (`"LIC-1"`), so a quoted JSON string is unquoted. */
function unquote(s: string): string {
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    try {
      const v = JSON.parse(s) as unknown;
      if (typeof v === 'string') return v;
    } catch {
      // not a JSON string: as written
    }
  }
  return s;
}

/** The most distinct templates kept compiled; past it the cache starts again (a log has tens of templates, not thousands). */
const TEMPLATE_CACHE_MAX = 2000;

/**
 * Reads values out of log entries; keeps the compiled templates, so one reader serves a
 * whole stream. Every method takes an entry as the service sent it (camelCase fields).
 */
export class EntryReader {
  private readonly templates = new Map<string, CompiledTemplate | null>();

  /** The properties of `entry`: its `properties` (JSON or XML), plus what its message yields against its template for names not there. */
  properties(entry: Record<string, unknown>): Map<string, string> {
    const props = parseProperties(entry.properties);
    const fromMessage = this.fromMessage(entry);
    if (fromMessage) for (const [k, v] of fromMessage) if (!props.has(k)) props.set(k, v);
    return props;
  }

  /**
   * The value of `field` in `entry`: `template`, `level`, `exception` (its type), `message`,
   * or a property name (exact, else case-insensitive), from `properties` or else the message
   * against its template. Undefined when the entry has none (empty counts as none).
   */
  value(entry: Record<string, unknown>, field: string): string | undefined {
    switch (field.toLowerCase()) {
      case 'template':
        return nonEmpty(entry.messageTemplate);
      case 'level':
        return nonEmpty(entry.level);
      case 'exception':
        return exceptionType(entry.exception);
      case 'message':
        return nonEmpty(entry.message);
    }
    return lookup(parseProperties(entry.properties), field) ?? lookup(this.fromMessage(entry), field);
  }

  /** The values the message yields against its template, or undefined when it has none or does not match. */
  private fromMessage(entry: Record<string, unknown>): Map<string, string> | undefined {
    const template = entry.messageTemplate;
    const message = entry.message;
    if (typeof template !== 'string' || typeof message !== 'string' || template === '') return undefined;
    let compiled = this.templates.get(template);
    if (compiled === undefined) {
      if (this.templates.size >= TEMPLATE_CACHE_MAX) this.templates.clear();
      compiled = compileTemplate(template) ?? null;
      this.templates.set(template, compiled);
    }
    if (!compiled || message.length > TEMPLATE_MESSAGE_MAX) return undefined;
    const values = matchTemplate(compiled, message);
    if (!values) return undefined;
    const out = new Map<string, string>();
    compiled.names.forEach((n, i) => {
      const v = values[i];
      if (v !== undefined && !out.has(n)) out.set(n, unquote(v));
    });
    return out;
  }
}

const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** `name` in `props`, exactly, else case-insensitively; undefined when absent or empty. */
function lookup(props: Map<string, string> | undefined, name: string): string | undefined {
  if (!props) return undefined;
  const exact = props.get(name);
  if (exact !== undefined) return exact === '' ? undefined : exact;
  const lower = name.toLowerCase();
  for (const [k, v] of props) if (k.toLowerCase() === lower) return v === '' ? undefined : v;
  return undefined;
}
