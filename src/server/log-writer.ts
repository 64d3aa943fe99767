import { cachedStatement, type Db } from './db.js';

/** Renders a Serilog message template (`{Name}` holes) with `props`; unknown holes stay as written. */
export function renderTemplate(template: string, props: Record<string, unknown>): string {
  return template.replace(/\{(\w+)\}/g, (hole, name: string) => (name in props ? String(props[name]) : hole));
}

/**
 * Appends one log entry (contract §6): `level` a Serilog level, `props` serialised as the
 * JSON `properties` string, `message` the rendered template. Never pass a secret in props.
 */
export function writeLog(db: Db, at: Date, level: string, messageTemplate: string, props: Record<string, unknown>, exception = ''): number {
  const stmt = cachedStatement(
    db,
    'INSERT INTO log (time_stamp, level, message, message_template, exception, properties) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const r = stmt.run(at.getTime(), level, renderTemplate(messageTemplate, props), messageTemplate, exception, JSON.stringify(props));
  return Number(r.lastInsertRowid);
}
