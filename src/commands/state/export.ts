import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { UsageError } from '../../cli/errors.js';
import { describeFsError, writeFileAtomic } from '../../cli/files.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import { needsPassword } from '../resources/bundle.js';
import { readService, resourceData, ServiceStateError, unnamedNote } from './current.js';
import { collectAfterRecordData } from '../../cli/memory.js';
import { assemblyIdentity, STATE_NOUNS, STATE_VERSION, type StateNoun } from './file.js';
import { outputFormats } from '../../cli/parse.js';

interface StateExportOptions {
  /** the sections to write, in STATE_NOUNS order */
  nouns: StateNoun[];
  /** write each resource's data to a file in this folder, referenced by `dataFile`, instead of inline base64 */
  dataDir?: string;
}

/** `--nouns`: a comma-separated list of keys, resources, assemblies → in STATE_NOUNS order. InvalidArgumentError (exit 2) naming the allowed ones. */
function parseNouns(value: string): StateNoun[] {
  const names = value.split(',').map((s) => s.trim().toLowerCase());
  const bad = names.filter((n) => !(STATE_NOUNS as readonly string[]).includes(n));
  if (bad.length || !names.length)
    throw new InvalidArgumentError(`expected a comma-separated list of ${STATE_NOUNS.join(', ')}; got ${JSON.stringify(bad[0] ?? value)}.`);
  return STATE_NOUNS.filter((n) => names.includes(n));
}

/** A file name for a resource's data: its code with anything but `A-Za-z0-9._-` as `_`, and its data format (lower case) as the extension. */
function dataFileName(code: string, dataFormat: string, taken: Set<string>, id: number): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  const ext = /^[A-Za-z0-9]{1,10}$/.test(dataFormat) ? dataFormat.toLowerCase() : 'bin';
  let name = `${safe(code) || 'resource'}.${ext}`;
  if (taken.has(name.toLowerCase())) name = `${safe(code)}-${id}.${ext}`;
  taken.add(name.toLowerCase());
  return name;
}

const byString =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * `lic state export [--nouns …] [--data-dir DIR]`: the service's configuration as one state
 * file on stdout (docs/state.md): YAML, or JSON with `-o json`. Records are sorted by
 * identity (so a re-export of an unchanged service is byte for byte the same), each with
 * every field of the file's schema (file.ts). Never a secret: API keys appear without
 * their key, resources without their password (PKCS #12 ones named on stderr). Written
 * record by record, each resource's data fetched alone, so memory stays flat; with
 * --data-dir each resource's bytes go to a file there (mode 0600: a signing key's private
 * half) named in `dataFile`. `-o` is json or table (YAML) only (outputFormats); ServiceStateError (exit 1) for an assembly whose mapping
 * resource has no code.
 */
async function runStateExport(opts: StateExportOptions, rt: Runtime): Promise<void> {
  if (opts.dataDir) {
    try {
      await mkdir(opts.dataDir, { recursive: true, mode: 0o700 });
    } catch (e) {
      // mkdir -p over a file (or a device) that is there: EEXIST
      const why = (e as NodeJS.ErrnoException).code === 'EEXIST' ? 'is there and is not a directory' : describeFsError(e);
      throw new UsageError(`--data-dir ${opts.dataDir}: ${why}`);
    }
  }
  const yaml = rt.out.opts.format === 'json' ? undefined : await import('yaml');
  const client = await rt.client();
  const have = await readService(client, opts.nouns);
  // refused before a byte is written: `lic state export > f.yaml` never leaves half a file
  if (have.assemblies) {
    const unnamed = [...have.assemblies.values()].filter((a) => a.mappingFileId && have.resourceCode.get(a.mappingFileId) === '');
    if (unnamed.length) {
      const ids = [...new Set(unnamed.map((a) => a.mappingFileId))];
      throw new ServiceStateError(
        `${unnamed.map((a) => `assembly ${a.id} (${assemblyIdentity(a)})`).join(', ')} name${unnamed.length > 1 ? '' : 's'} mapping resource(s) ${ids.join(', ')} without a code, which a state file names them by; give ${ids.length > 1 ? 'each' : 'it'} one (${ids.map((id) => `lic resources update ${id} --code CODE`).join(', ')}) and export again; nothing was written`,
      );
    }
  }
  const put = async (text: string) => {
    if (rt.ctx.stdout.write(text) === false && rt.ctx.stdout.drain) await rt.ctx.stdout.drain();
  };
  let first = true;
  const section = async (noun: StateNoun, items: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>) => {
    let n = 0;
    if (yaml) {
      await put(`${noun}:`);
      for await (const it of items) await put(`${n++ ? '' : '\n'}${yaml.stringify([it], { lineWidth: 0 })}`);
      if (!n) await put(' []\n');
    } else {
      await put(`${first ? '' : ','}\n  ${JSON.stringify(noun)}: [`);
      for await (const it of items) await put(`${n++ ? ',' : ''}\n    ${JSON.stringify(it)}`);
      await put(n ? '\n  ]' : ']');
    }
    first = false;
    return n;
  };

  if (yaml) await put(`# lic state file (docs/state.md): lic diff -f FILE; lic apply -f FILE\nversion: ${STATE_VERSION}\n`);
  else (await put(`{\n  "version": ${STATE_VERSION}`), (first = false));
  const counts: string[] = [];
  const withPassword: string[] = [];
  for (const noun of opts.nouns) {
    if (noun === 'resources') {
      const taken = new Set<string>();
      const recs = [...have.resources!.values()].sort(byString((r) => r.code));
      const n = await section(
        noun,
        (async function* () {
          // the bytes of the resource before: let go before the next one is fetched
          let last = 0;
          for (const r of recs) {
            collectAfterRecordData(last);
            const bytes = await resourceData(client, r.id);
            last = bytes?.length ?? 0;
            if (!bytes) continue;
            if (needsPassword(r)) withPassword.push(r.code);
            const out: Record<string, unknown> = {
              code: r.code,
              name: r.name,
              type: r.type,
              description: r.description,
              source: r.source,
              dataFormat: r.dataFormat,
            };
            if (opts.dataDir && bytes.length) {
              const file = dataFileName(r.code, r.dataFormat, taken, r.id);
              try {
                await writeFileAtomic(join(opts.dataDir, file), bytes, { mode: 0o600 });
              } catch (e) {
                throw new UsageError(`--data-dir ${opts.dataDir}: could not write ${file} (${describeFsError(e)})`);
              }
              out.dataFile = join(opts.dataDir, file);
            } else out.data = bytes.toString('base64');
            yield out;
          }
        })(),
      );
      counts.push(`${n} resource(s)`);
      if (have.uncoded.length)
        rt.out.warn(
          `lic: left out ${have.uncoded.length} resource(s) without a code, which a state file can't name: ${have.uncoded.map((r) => `${r.id} "${r.name}"`).join(', ')}; give each one with \`lic resources update ID --code CODE\``,
        );
    } else if (noun === 'assemblies') {
      const recs = [...have.assemblies!.values()].sort(byString((a) => assemblyIdentity(a)));
      const items = recs.map((a) => {
        let mappingFile = '';
        if (a.mappingFileId) {
          const code = have.resourceCode.get(a.mappingFileId);
          if (code === undefined)
            rt.out.warn(
              `lic: assembly ${a.id} names mapping resource ${a.mappingFileId}, which does not exist; exported without one (clear it with lic assemblies update ${a.id} --mapping-file-id 0)`,
            );
          else mappingFile = code;
        }
        return {
          name: a.name,
          version: a.version,
          culture: a.culture || 'neutral',
          publicKeyToken: a.publicKeyToken,
          mappingFile,
          debugSymbolsKey: a.debugSymbolsKey,
        };
      });
      counts.push(`${await section(noun, items)} assemblies`);
    } else {
      const recs = [...have.keys!.values()].sort(byString((k) => k.name));
      const items = recs.map((k) => ({
        name: k.name,
        ownerId: k.ownerId,
        permissions: k.permissions,
        description: k.description,
        expireDate: k.expireDate,
        revoked: k.revoked,
      }));
      counts.push(`${await section(noun, items)} API key(s)`);
      if (have.unnamed.length) rt.out.warn(unnamedNote('left out', have.unnamed));
    }
  }
  if (!yaml) await put('\n}\n');
  if (withPassword.length)
    rt.out.warn(
      `lic: passwords are never exported; after an apply set the password of ${withPassword.join(', ')} (lic resources update ID --password-prompt)`,
    );
  rt.out.note(`Exported ${counts.join(', ')}.`);
}

/** Declares `state export [--nouns LIST] [--data-dir DIR]`. */
export function registerStateExport(parent: Command, deps: CommandDeps, run = runStateExport): void {
  outputFormats(parent.command('export'), ['table', 'json'])
    .description('Write the configuration (API keys without their secrets, resources without passwords, assemblies) as one YAML document')
    .option('--nouns <list>', `the sections to write, comma-separated: ${STATE_NOUNS.join(', ')} (default: all)`, parseNouns)
    .option('--data-dir <dir>', "write each resource's data to a file in DIR (mode 0600) named by dataFile, instead of inline base64")
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  lic state export > licensing.yaml\n' +
        '  lic state export --data-dir resources > licensing.yaml\n' +
        '  lic state export --nouns keys -o json > keys.json',
    )
    .action(async (o: { nouns?: StateNoun[]; dataDir?: string }, c: Command) =>
      run({ nouns: o.nouns ?? [...STATE_NOUNS], dataDir: o.dataDir }, deps.runtimeOf(c)),
    );
}
