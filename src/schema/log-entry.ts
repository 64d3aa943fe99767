/** The log entry record (spec LogEntry; contract §6). */
import type { Static } from 'typebox';
import { record, recordId, time } from './json-schema.js';

/** Serilog levels, the allowed values of LogEntry.level (contract §6). */
export const LOG_LEVELS = ['Verbose', 'Debug', 'Information', 'Warning', 'Error', 'Fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A log entry (spec LogEntry); read-only: the service writes the log. */
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
