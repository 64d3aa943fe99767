/**
 * What `resources create` and `resources update` share: the field flags, reading the
 * data file (or stdin), and taking the password from stdin or a hidden prompt, never
 * from an option value (brief: secrets never in argv).
 */
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import type { ResourceInput } from '../../client/endpoints/resources.js';
import { UsageError } from '../../cli/errors.js';
import { describeFsError, readFileBounded, sayReadingTerminal } from '../../cli/files.js';
import type { Runtime } from '../../cli/runtime.js';

/**
 * Largest `--data-file` in bytes: 7 MiB. Its base64 (4/3 larger) plus the other fields
 * must fit the service's 10 MiB body limit (contract §9), so a larger file is refused
 * before anything is sent.
 */
export const MAX_DATA_BYTES = 7 * 1024 * 1024;
/** Largest password read by `--password-stdin`: 4 KiB, far more than any real password. */
export const MAX_PASSWORD_BYTES = 4096;
/** Names and codes at most 256 characters (contract §9). */
const MAX_NAME = 256;

/** The field flags of create/update, as commander parsed them. */
export interface ResourceFieldOptions {
  name?: string;
  type?: string;
  code?: string;
  format?: string;
  description?: string;
  source?: string;
  /** a path, or `-` for stdin */
  dataFile?: string;
  passwordStdin?: boolean;
  passwordPrompt?: boolean;
  /** an empty data file (or stdin) is sent as empty data instead of refused */
  allowEmpty?: boolean;
}

/** Adds the field flags shared by create and update to `cmd`. There is deliberately no option that takes a password. */
export function addResourceFieldOptions(cmd: Command, required: boolean): Command {
  const named = required ? cmd.requiredOption.bind(cmd) : cmd.option.bind(cmd);
  named('--name <name>', 'unique name, 1..256 characters');
  named('--type <type>', 'RSA (signing key pair), email (HTML template), or any other value');
  return cmd
    .option('--code <code>', 'unique code, up to 256 characters ("" for none)')
    .option('--format <format>', 'data format: SNK for RSA key pairs, html for e-mail templates, ...')
    .option('--description <text>', 'free text')
    .option('--source <text>', 'where the data came from')
    .option('--data-file <path>', `file whose bytes become the data, or - for stdin (at most ${MAX_DATA_BYTES / 1024 / 1024} MiB)`)
    .option('--password-stdin', 'read the password of the data (e.g. of a key pair) from stdin (on a terminal: a hidden prompt)')
    .option('--password-prompt', 'ask for the password of the data with a hidden prompt (terminal only)')
    .option('--allow-empty', 'accept an empty --data-file (refused otherwise: an empty stdin is usually a lost redirect)');
}

/**
 * Reads the bytes of `--data-file` (`-` = stdin), at most MAX_DATA_BYTES: the read stops
 * one byte past the limit (`/dev/zero` included). UsageError naming the flag for a
 * missing, unreadable or too large file, and for an empty one unless `allowEmpty`.
 */
async function readDataFile(path: string, rt: Runtime, allowEmpty = false): Promise<Buffer> {
  const tooBig = (n?: number) =>
    new UsageError(
      `--data-file ${path}: ${n === undefined ? 'more' : `${n} bytes is more`} than the limit of ${MAX_DATA_BYTES} bytes (7 MiB; the service takes bodies up to 10 MiB and base64 adds a third)`,
    );
  let bytes: Buffer;
  if (path === '-') {
    sayReadingTerminal(rt.ctx, 'the data');
    bytes = await rt.ctx.stdin.readAll(MAX_DATA_BYTES);
    if (bytes.length > MAX_DATA_BYTES) throw tooBig();
  } else {
    try {
      const st = await stat(path);
      if (st.isDirectory()) throw new UsageError(`--data-file ${path}: is a directory, not a file`);
      if (st.isFile() && st.size > MAX_DATA_BYTES) throw tooBig(st.size);
      // a FIFO or device has no size up front: read one byte past the limit at most
      bytes = await readFileBounded(path, MAX_DATA_BYTES);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`--data-file ${path}: ${describeFsError(e)}`);
    }
    if (bytes.length > MAX_DATA_BYTES) throw tooBig();
  }
  if (bytes.length === 0 && !allowEmpty) {
    throw new UsageError(
      `--data-file ${path}: ${path === '-' ? 'stdin' : 'the file'} is empty; nothing was sent (add --allow-empty to store empty data)`,
    );
  }
  return bytes;
}

/** The password from stdin (one trailing newline dropped, like `docker login --password-stdin`) or a hidden prompt. */
async function readPassword(o: ResourceFieldOptions, rt: Runtime, label: string): Promise<string> {
  let password: string;
  // on a terminal a password typed on stdin would show as it is typed: the hidden prompt asks instead
  if (o.passwordStdin && !(rt.ctx.stdin.isTTY && rt.ctx.stderr.isTTY)) {
    const bytes = await rt.ctx.stdin.readAll(MAX_PASSWORD_BYTES);
    if (bytes.length > MAX_PASSWORD_BYTES)
      throw new UsageError(`--password-stdin: more than ${MAX_PASSWORD_BYTES} bytes on stdin; a password is at most that`);
    password = bytes.toString('utf8').replace(/\n$/, '').replace(/\r$/, '');
    if (!password) throw new UsageError('--password-stdin: stdin was empty');
  } else {
    if (!rt.ctx.stdin.isTTY || !rt.ctx.stderr.isTTY) {
      throw new UsageError('--password-prompt needs a terminal; pipe the password in with --password-stdin instead');
    }
    password = await rt.ctx.prompter.secret(`Password for ${label}:`);
    if (!password) throw new UsageError('the password is empty; nothing was sent');
  }
  return password;
}

/**
 * Flags → the fields to send: only those given (update sends only those, contract §7).
 * Reads the data file and the password. UsageError for conflicting stdin uses, an empty
 * or over-long name, an over-long code, or a bad data file.
 */
export async function resourceInputFrom(o: ResourceFieldOptions, rt: Runtime, label: string): Promise<ResourceInput> {
  if (o.passwordStdin && o.passwordPrompt) throw new UsageError('give one of --password-stdin and --password-prompt');
  if (o.passwordStdin && o.dataFile === '-') {
    throw new UsageError('--data-file - and --password-stdin both read stdin; give the data as a file path');
  }
  if (o.name !== undefined && (o.name.length === 0 || o.name.length > MAX_NAME)) {
    throw new UsageError(`--name must be 1..${MAX_NAME} characters (got ${o.name.length})`);
  }
  if (o.code !== undefined && o.code.length > MAX_NAME) {
    throw new UsageError(`--code must be at most ${MAX_NAME} characters (got ${o.code.length})`);
  }
  const input: ResourceInput = {};
  if (o.name !== undefined) input.name = o.name;
  if (o.type !== undefined) input.type = o.type;
  if (o.code !== undefined) input.code = o.code;
  if (o.format !== undefined) input.dataFormat = o.format;
  if (o.description !== undefined) input.description = o.description;
  if (o.source !== undefined) input.source = o.source;
  if (o.dataFile !== undefined) input.data = (await readDataFile(o.dataFile, rt, o.allowEmpty)).toString('base64');
  if (o.passwordStdin || o.passwordPrompt) input.password = await readPassword(o, rt, label);
  return input;
}
