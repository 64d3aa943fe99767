/** Text checks shared by the service's body parser and its query language. */

/** A lone (unpaired) UTF-16 surrogate: not Unicode text, and not storable as UTF-8. Static, never built from input. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The dotted path (`resource.name`) of the first string (key or value) in `value` that `bad` holds for; undefined when none. */
export function firstStringWhere(value: unknown, bad: (s: string) => boolean): string | undefined {
  const walk = (v: unknown, path: string): string | undefined => {
    if (typeof v === 'string') return bad(v) ? path : undefined;
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        const found = (bad(k) ? at : undefined) ?? walk(x, at);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(value, '');
}

/** A `\uD800`..`\uDFFF` escape in JSON text: the only way a lone surrogate gets into a body that is valid UTF-8. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * The dotted path of the first string of a parsed JSON text (`text`, `value`: a request body, a dataset file) holding a
 * lone surrogate (`"\ud800x"`: valid JSON, but not Unicode text, and SQLite would store it
 * as bytes that are not UTF-8); undefined when none. Only a body with a surrogate escape
 * is walked.
 */
export function fieldWithLoneSurrogate(text: string, value: unknown): string | undefined {
  return SURROGATE_ESCAPE.test(text) ? firstStringWhere(value, (s) => LONE_SURROGATE.test(s)) : undefined;
}
