/** The log entry record (contract §6). */
import type { Static } from 'typebox';
import { idSchema, record, recordId, time } from './json-schema.js';

/** Serilog levels, the allowed values of LogEntry.level (contract §6). */
export const LOG_LEVELS = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A log entry; read-only: the service writes the log. */
export const LogEntrySchema = record(
  {
    id: recordId,
    message: { type: 'string' },
    messageTemplate: { type: 'string', description: 'the Serilog message template of message' },
    level: { type: 'string', enum: LOG_LEVELS },
    timeStamp: time,
    exception: { type: 'string' },
    properties: { type: 'string', description: 'a JSON object serialised as a string' },
  },
  'LogEntry',
);
export type LogEntry = Static<typeof LogEntrySchema>;

/** `startDate` (inclusive) and `endDate` (exclusive) of `GET` and `DELETE /v1/log`: RFC 3339 or a plain date (contract §2, §6). */
export const logRangeProperties = { startDate: { type: 'string', maxLength: 64 }, endDate: { type: 'string', maxLength: 64 } } as const;
export type LogRange = Static<{ type: 'object'; properties: typeof logRangeProperties }>;

/** The query of `DELETE /v1/log` (contract §6): one entry by id, by filter and dates, or deleteAll. */
export const LogPurgeQuerySchema = {
  type: 'object',
  properties: { id: idSchema, filter: { type: 'string', maxLength: 4096 }, deleteAll: { type: 'boolean' }, ...logRangeProperties },
} as const;
export type LogPurgeQuery = Static<typeof LogPurgeQuerySchema>;
