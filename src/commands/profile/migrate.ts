import { Option, type Command } from 'commander';
import { UsageError } from '../../cli/errors.js';
import type { CommandDeps } from '../../cli/deps.js';
import type { Runtime } from '../../cli/runtime.js';
import type { KeyStore } from '../../config/profiles.js';
import { outputFormats } from '../../cli/parse.js';

interface ProfileMigrateOptions {
  /** where the keys go */
  to: KeyStore;
  /** the profiles to move; empty: every profile */
  names: string[];
  dryRun?: boolean;
}

const STORES: readonly KeyStore[] = ['keyring', 'file'];

/**
 * `lic profile migrate [--to keyring|file] [NAME...] [--dry-run]`: moves the API keys of the
 * named profiles (default: all) into the keyring or into the profile file. Prints one row per
 * profile (moved, already there, no key); a key is in exactly one place at every moment it
 * matters (to the keyring: written and read back before the file loses it). Running it twice
 * changes nothing. UsageError for an unknown profile; KeyringError (exit 3) when the keyring
 * is unreachable or refuses, before profiles.json is changed.
 */
async function runProfileMigrate(opts: ProfileMigrateOptions, rt: Runtime): Promise<void> {
  const store = await rt.profiles();
  const unknown = opts.names.find((n) => !store.get(n));
  if (unknown !== undefined) {
    const names = store.list().map((p) => p.name);
    throw new UsageError(`no profile named "${unknown}"; profiles: ${names.join(', ') || '(none)'}`);
  }
  const [{ migrateKeys }, { KeyringUnavailableError }] = await Promise.all([
    import('../../config/key-storage.js'),
    import('../../config/keyring.js'),
  ]);
  const results = await migrateKeys(store, rt.ctx.keyring, opts.to, [...new Set(opts.names)], Boolean(opts.dryRun)).catch((e: unknown) => {
    if (!(e instanceof KeyringUnavailableError)) throw e;
    throw new KeyringUnavailableError(`${e.reason}; nothing was changed: run it where the keyring is (a desktop session)`);
  });
  await rt.out.list({ profiles: results }, results, [
    { header: 'PROFILE', get: (r) => r.profile },
    { header: 'FROM', get: (r) => r.from ?? '-' },
    { header: 'TO', get: (r) => r.to },
    { header: 'RESULT', get: (r) => r.result, tone: (r) => (r.result === 'moved' ? 'ok' : r.result === 'no key' ? 'dim' : undefined) },
  ]);
  const moved = results.filter((r) => r.result === 'moved' || r.result === 'would move').length;
  const where = opts.to === 'keyring' ? 'the keyring' : `the profile file ${store.path}`;
  if (opts.dryRun) rt.out.info(`Dry run: ${moved} key(s) would move into ${where}; nothing was changed.`);
  else rt.out.note(moved ? `Moved ${moved} key(s) into ${where}.` : `Nothing to move: every key is already in ${where}.`);
  for (const r of results) {
    if (r.leftover)
      rt.out.warn(`lic: the key of profile "${r.profile}" is in the file now, but its keyring entry was not deleted (${r.leftover}).`);
  }
}

/** Registers `lic profile migrate` on `parent`. */
export function registerProfileMigrate(parent: Command, deps: CommandDeps, run = runProfileMigrate): void {
  outputFormats(parent.command('migrate'))
    .description("Move API keys between the operating system's keyring and the profile file")
    .argument('[names...]', 'profiles to move (default: all)')
    .addOption(new Option('--to <store>', 'where the keys go').choices(STORES).default('keyring'))
    .option('--dry-run', 'print what would move and check the keyring would take it (a probe entry, stored and deleted); change no profile')
    .addHelpText(
      'after',
      '\nKeys saved before lic used the keyring, or while none was reachable, are in the profile file;\n`--to keyring` moves them there. `--to file` is the way back, for a machine that loses its keyring.\nProfiles already where asked are left alone, so running it again changes nothing.\n\nExamples:\n  lic profile migrate --dry-run\n  lic profile migrate --to keyring\n  lic profile migrate --to file ci',
    )
    .action(async (names: string[], o: { to: KeyStore; dryRun?: boolean }, cmd: Command) =>
      run({ to: o.to, names, dryRun: o.dryRun }, deps.runtimeOf(cmd)),
    );
}
