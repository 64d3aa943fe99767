/**
 * Help topics beyond the commands: `lic help environment`, `lic help exit-codes`,
 * `lic help filters`. Each is a hidden command whose help is the topic's text, so
 * commander's own help command (`lic help keys`) serves both, and `lic TOPIC` prints it too.
 */
import type { Command } from 'commander';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import { proseWidth, wrapText } from './layout.js';

/** `lic help environment`: every variable lic reads, and the precedence flag > environment > profile (README "Environment and precedence"). */
const ENVIRONMENT = `Environment variables

Where to connect (precedence: flag > environment > profile):
  LIC_PROFILE            profile to use (flag --profile; default: the default profile)
  LIC_BASE_URL           service URL (flag --base-url; else the profile's, else http://127.0.0.1:8765)
  LIC_API_KEY            API key (never a flag; else the profile's)

Requests:
  LIC_TIMEOUT            per-request timeout such as 30s (flag --timeout)
  LIC_TIMEOUT_MS         per-request timeout in milliseconds (default 30000)
  LIC_RETRIES            extra attempts on network errors, 429, 502/503/504: GET and PUT, POST and DELETE only when the connection was refused (flag --retries; default 2)
  LIC_MAX_REPLY_BYTES    the largest reply body accepted: bytes, or 64M, 1G (default 64M)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                         proxy for https:// and http:// URLs; hosts that bypass it
  NODE_EXTRA_CA_CERTS    a PEM file of extra CA certificates to trust (also flag --ca-file)

Files:
  LIC_CONFIG_DIR         directory of the profile store (default ~/.config/lic)
  LIC_DATA_DIR           where \`lic serve\` keeps lic.db (default ~/.local/share/lic)
  LIC_CACHE_DIR          where V8's compiled code of lic is cached between runs (default $XDG_CACHE_HOME/lic/compile-cache, ~/.cache/lic/compile-cache); NODE_DISABLE_COMPILE_CACHE=1 turns the cache off
  LIC_SECRET_KEY         \`lic serve\`: the key sealing resource passwords at rest (32 bytes, base64 or hex); default the 0600 file <db>.key beside the database

Output:
  NO_COLOR               non-empty: no color (wins over FORCE_COLOR and CLICOLOR_FORCE)
  FORCE_COLOR            color even when stdout is not a terminal; 0 or false: never
  CLICOLOR_FORCE         non-empty and not 0: as FORCE_COLOR=1
  TERM=dumb              no color on a terminal
  LIC_DEBUG=1            a stack trace with an error

Examples:
  LIC_BASE_URL=https://licensing.example.com LIC_API_KEY="$KEY" lic keys list
  NO_COLOR=1 lic log list --level Error
  FORCE_COLOR=1 lic log tail -n 50 | less -R
`;

/** `lic help exit-codes`: the documented exit codes (README "Exit codes"). */
const EXIT_CODES = `Exit codes

  0    success; also when the reader of a pipe went away early (lic ... | head -1)
  1    API or runtime error: the service said no (400, 409, 413, 429, 5xx), a reply that is not the expected JSON (an insert without its id, a reply over LIC_MAX_REPLY_BYTES), a page of --all that does not move forward, a declined confirmation; resources import or assemblies import with any item failed (the summary is printed first)
  2    usage error: a bad flag, argument, value or environment variable, a conflict between flags, missing --yes off a terminal, an empty or too large input, the API key over plain http:// to a host that is not loopback, an unknown command or help topic. Nothing was sent
  3    not authenticated or not permitted (401, 403), or no API key configured
  4    not found (404)
  5    network error or timeout, after the retries (lic help environment: LIC_TIMEOUT, LIC_RETRIES); an untrusted TLS certificate; a reply cut short
  130  interrupted (Ctrl-C)

Errors are one line on stderr, "lic: <message>", with (HTTP status, code, method path) when the service said it, or the nearest command, flag or topic when one was mistyped (did you mean keys?). No stack trace unless LIC_DEBUG=1.

Examples:
  lic keys list -o json > keys.json || echo "failed with $?"
  set -o pipefail; lic log list --all -o ndjson | head -1
`;

/** `lic help filters`: the query grammar of `--where` (contract §5; README "Lists"). */
const FILTERS = `Filters: --where EXPR on every list verb (and lic log purge)

A boolean expression in the service's query language, AND-ed with the friendly filter flags (--level, --since, --owner, --type, ...):

  fields     as in the records, case-insensitive: Level, level, TimeStamp, Id, Name
  literals   "double-quoted strings" (backslash escapes), 42, 3.5, true, false, null
  compare    =  ==  !=  <>  <  <=  >  >=
  logic      and  or  not   (also && || !), parentheses
  strings    Field.Contains("x")  Field.StartsWith("x")  Field.EndsWith("x")
  times      a timestamp field compared with a string compares as a time:
             TimeStamp >= "2025-01-18"

A bad filter is a 400 (exit 1) naming the position and what was expected. Quote the expression for the shell with single quotes.

Also on lists: --sort FIELD[:asc|desc] (repeatable), --fields a,b,c, --limit N, --take N and --skip N (take 0..1000), --all (every page).

Examples:
  lic orders list --customer 7 --where 'Total > 1000 and Currency = "EUR"' --sort total:desc
  lic keys list --where 'ExpireDate != null and not Revoked' --fields id,name,expireDate
  lic log list --all --where 'Level = "Error" or Level = "Fatal"' -o csv > errors.csv
`;

/** The topics by name, in the order `lic --help` lists them. */
export const HELP_TOPICS: Record<string, { summary: string; text: string }> = {
  environment: { summary: 'environment variables and their precedence', text: ENVIRONMENT },
  'exit-codes': { summary: 'what each exit code means', text: EXIT_CODES },
  filters: { summary: 'the --where query language, with examples', text: FILTERS },
};

/**
 * Adds the topics as hidden commands of `program` (`lic help TOPIC`, `lic TOPIC`), names them in
 * its help, and declares `lic help [command...]`: the help of a command (`lic help keys list`)
 * or a topic, wrapped to the terminal (./layout.ts); an unknown name is a UsageError (exit 2)
 * suggesting the nearest command or topic. Call after every noun is registered.
 */
export function registerHelpTopics(program: Command, ctx: Context): void {
  for (const [name, topic] of Object.entries(HELP_TOPICS)) {
    program
      .command(name, { hidden: true })
      .description(topic.summary)
      .configureHelp({ formatHelp: (_cmd, helper) => wrapText(topic.text, helper.helpWidth ?? 80) })
      .action(() => void ctx.stdout.write(wrapText(topic.text, proseWidth(ctx.stdout, ctx.env))));
  }
  const width = Math.max(...Object.keys(HELP_TOPICS).map((n) => n.length));
  program.addHelpText(
    'after',
    `\nHelp topics (lic help TOPIC):\n${Object.entries(HELP_TOPICS)
      .map(([n, t]) => `  ${n.padEnd(width)}  ${t.summary}`)
      .join('\n')}`,
  );
  // commander's own help command prints the whole help for an unknown name; this one says what was not found
  program
    .command('help')
    .argument('[command...]')
    .description('display help for command')
    .addHelpText('after', '\nExamples:\n  lic help keys list\n  lic help filters')
    .action((path: string[]) => {
      let cmd = program;
      for (const [i, name] of path.entries()) {
        const sub = cmd.commands.find((c) => c.name() === name || c.aliases().includes(name));
        if (!sub) {
          const names = cmd.commands.filter((c) => c.name() !== 'help').flatMap((c) => [c.name(), ...c.aliases()]);
          const near = nearest(name, names);
          const what = cmd === program ? `command or help topic '${name}'` : `command '${path.slice(0, i + 1).join(' ')}'`;
          throw new UsageError(`unknown ${what}${near ? ` (did you mean ${near}?)` : ''}`);
        }
        cmd = sub;
      }
      cmd.outputHelp();
    });
}

/** The name of `names` nearest to `typed` (Damerau-Levenshtein distance at most 2, as commander suggests), or undefined. */
function nearest(typed: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const n of names) {
    const d = editDistance(typed.toLowerCase(), n.toLowerCase());
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
