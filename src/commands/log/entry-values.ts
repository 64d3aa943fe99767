/**
 * Reading a value out of a log entry (contract §6: `message`, `messageTemplate`, `level`,
 * `exception`, `properties` as a string) for `lic log top` and `lic log report`: the entry's
 * own fields, the exception's type, and a property by name — from `properties` as JSON (lic
 * serve), as Serilog's XML (`<properties><property key='K'>V</property>…`, the MSSqlServer
 * sink's default), or, when `properties` is empty or lacks it, from the message matched
 * against its template (a `{Name}` hole becomes a capture), so a service that sends neither
 * still answers.
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

/** XML text with its tags left out and its entities (`&lt;`, `&#39;`, `&#x27;`) decoded. */
function xmlText(s: string): string {
  return s
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_, e: string) =>
      e.startsWith('#x')
        ? String.fromCodePoint(parseInt(e.slice(2), 16))
        : e.startsWith('#')
          ? String.fromCodePoint(Number(e.slice(1)))
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

/** A message template compiled: the regex matching a message rendered from it, and the name of each capture. */
interface CompiledTemplate {
  re: RegExp;
  names: string[];
}

/** Regex special characters, escaped in a template's literal text. */
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Compiles a Serilog message template: literal text matched as it is (`{{`/`}}` are
 * literal braces), each hole `{Name}`, `{@Name}`, `{$Name}`, `{Name,8}`, `{Name:format}`
 * a lazy capture. Undefined for a template without holes.
 */
export function compileTemplate(template: string): CompiledTemplate | undefined {
  const names: string[] = [];
  let src = '';
  const re = /\{\{|\}\}|\{[@$]?([A-Za-z0-9_]+)(?:,-?\d+)?(?::[^}]*)?\}/g;
  let last = 0;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    src += escapeRe(template.slice(last, m.index));
    if (m[0] === '{{') src += '\\{';
    else if (m[0] === '}}') src += '\\}';
    else {
      names.push(m[1]!);
      src += '(.*?)';
    }
    last = m.index + m[0].length;
  }
  if (names.length === 0) return undefined;
  src += escapeRe(template.slice(last));
  return { re: new RegExp(`^${src}$`, 's'), names };
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
    if (!compiled) return undefined;
    const m = compiled.re.exec(message);
    if (!m) return undefined;
    const out = new Map<string, string>();
    compiled.names.forEach((n, i) => {
      if (!out.has(n)) out.set(n, unquote(m[i + 1]!));
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
