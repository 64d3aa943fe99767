/**
 * Help topics beyond the commands: `lic help environment`, `lic help exit-codes`,
 * `lic help filters`. Each is a hidden command whose help is the topic's text, so
 * commander's own help command (`lic help keys`) serves both, and `lic TOPIC` prints it too.
 */
import type { Command } from 'commander';
import type { Context } from './context.js';

/** `lic help environment`: every variable lic reads, and the precedence flag > environment > profile (README "Environment and precedence"). */
const ENVIRONMENT = `Environment variables

Where to connect (precedence: flag > environment > profile):
  LIC_PROFILE            profile to use (flag --profile; default: the default profile)
  LIC_BASE_URL           service URL (flag --base-url; else the profile's, else http://127.0.0.1:8765)
  LIC_API_KEY            API key (never a flag; else the profile's)

Requests:
  LIC_TIMEOUT            per-request timeout such as 30s (flag --timeout)
  LIC_TIMEOUT_MS         per-request timeout in milliseconds (default 30000)
  LIC_RETRIES            extra attempts on network errors, 429, 502/503/504: GET and PUT, POST and
                         DELETE only when the connection was refused (flag --retries; default 2)
  LIC_MAX_REPLY_BYTES    the largest reply body accepted: bytes, or 64M, 1G (default 64M)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY
                         proxy for https:// and http:// URLs; hosts that bypass it
  NODE_EXTRA_CA_CERTS    a PEM file of extra CA certificates to trust (also flag --ca-file)

Files:
  LIC_CONFIG_DIR         directory of the profile store (default ~/.config/lic)
  LIC_DATA_DIR           where \`lic serve\` keeps lic.db (default ~/.local/share/lic)
  LIC_CACHE_DIR          where V8's compiled code of lic is cached between runs (default
                         $XDG_CACHE_HOME/lic/compile-cache, ~/.cache/lic/compile-cache);
                         NODE_DISABLE_COMPILE_CACHE=1 turns the cache off
  LIC_SECRET_KEY         \`lic serve\`: the key sealing resource passwords at rest (32 bytes, base64
                         or hex); default the 0600 file <db>.key beside the database

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
  1    API or runtime error: the service said no (400, 409, 413, 429, 5xx), a reply
       that is not the expected JSON (an insert without its id, a reply over
       LIC_MAX_REPLY_BYTES), a page of --all that does not move forward, a declined
       confirmation; resources import or assemblies import with any item failed
       (the summary is printed first)
  2    usage error: a bad flag, argument, value or environment variable, a conflict
       between flags, missing --yes off a terminal, an empty or too large input, the
       API key over plain http:// to a host that is not loopback. Nothing was sent
  3    not authenticated or not permitted (401, 403), or no API key configured
  4    not found (404)
  5    network error or timeout, after the retries (lic help environment: LIC_TIMEOUT,
       LIC_RETRIES); an untrusted TLS certificate; a reply cut short
  130  interrupted (Ctrl-C)

Errors are one line on stderr, "lic: <message>", with (HTTP status, code, method path)
when the service said it. No stack trace unless LIC_DEBUG=1.

Examples:
  lic keys list -o json > keys.json || echo "failed with $?"
  set -o pipefail; lic log list --all -o ndjson | head -1
`;

/** `lic help filters`: the query grammar of `--where` (contract §5; README "Lists"). */
const FILTERS = `Filters: --where EXPR on every list verb (and lic log purge)

A boolean expression in the service's query language, AND-ed with the friendly filter
flags (--level, --since, --owner, --type, ...):

  fields     as in the records, case-insensitive: Level, level, TimeStamp, Id, Name
  literals   "double-quoted strings" (backslash escapes), 42, 3.5, true, false, null
  compare    =  ==  !=  <>  <  <=  >  >=
  logic      and  or  not   (also && || !), parentheses
  strings    Field.Contains("x")  Field.StartsWith("x")  Field.EndsWith("x")
  times      a timestamp field compared with a string compares as a time:
             TimeStamp >= "2025-01-18"

A bad filter is a 400 (exit 1) naming the position and what was expected. Quote the
expression for the shell with single quotes.

Also on lists: --sort FIELD[:asc|desc] (repeatable), --fields a,b,c, --limit N,
--take N and --skip N (take 0..1000), --all (every page).

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

/** Adds the topics as hidden commands of `program` (`lic help TOPIC`, `lic TOPIC`) and names them in its help. */
export function registerHelpTopics(program: Command, ctx: Context): void {
  for (const [name, topic] of Object.entries(HELP_TOPICS)) {
    program
      .command(name, { hidden: true })
      .description(topic.summary)
      .configureHelp({ formatHelp: () => topic.text })
      .action(() => void ctx.stdout.write(topic.text));
  }
  const width = Math.max(...Object.keys(HELP_TOPICS).map((n) => n.length));
  program.addHelpText(
    'after',
    `\nHelp topics (lic help TOPIC):\n${Object.entries(HELP_TOPICS)
      .map(([n, t]) => `  ${n.padEnd(width)}  ${t.summary}`)
      .join('\n')}`,
  );
}
