/**
 * The kinds of event in the demo's license transaction log: per level, the message
 * templates of a license service (Serilog style), how often each occurs, the values they
 * carry and, for errors, the .NET exception and stack trace written with them.
 */
import type { LogLevel } from '../../../wire.js';
import type { Edition } from './catalogue.js';
import type { Rng } from './rng.js';

/** A license in the field, the subject of a log event. */
export interface License {
  id: string;
  customerCode: string;
  productCode: string;
  productName: string;
  version: string;
  edition: Edition;
  machines: string[];
  seats: number;
}

/** What an event is about: the license, one of its machines, a user name and a client IP; `r` the `log` stream. */
export interface Ctx {
  r: Rng;
  lic: License;
  machine: string;
  user: string;
  ip: string;
}

/** The values of a message template's `{Name}` holes. */
export type Values = Record<string, string | number>;

/** A kind of log event. */
interface EventDef {
  level: LogLevel;
  /** how often it occurs, relative to the other events of its level */
  weight: number;
  /** Serilog message template, `{Name}` holes */
  template: string;
  /** SourceContext: the logging class */
  source: string;
  values: (c: Ctx) => Values;
  /** concerns a concurrent-use license (picked among licenses with 5+ seats) */
  floating?: true;
  /**
   * most of these events concern a few licenses: `leaked` (a key deployed far beyond its
   * activations) or `saturated` (a floating pool too small for its users)
   */
  hot?: 'leaked' | 'saturated';
  exception?: (c: Ctx, v: Values) => string;
}

const SVC = 'Halvard.Licensing.Service';

/** The values of the events about a license on one of its machines: `{LicenseId}`, `{CustomerCode}`, `{MachineId}`. */
const licenseOnMachine = (c: Ctx): Values => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, MachineId: c.machine });

/** An exception as .NET prints it: `Type: message` and one `   at frame` line per frame. */
function trace(type: string, message: string, frames: string[]): string {
  return `${type}: ${message}\n${frames.map((f) => `   at ${f}`).join('\n')}`;
}

const VALIDATE_FRAMES = [
  'Halvard.Licensing.Validation.LicenseValidator.ValidateAsync(LicenseDocument license, ValidationContext context, CancellationToken ct) in /src/Licensing/Validation/LicenseValidator.cs:line 118',
  'Halvard.Licensing.Service.LicenseEndpoint.Validate(ValidateRequest request, ServerCallContext context) in /src/Licensing.Service/LicenseEndpoint.cs:line 64',
  'Grpc.Shared.Server.UnaryServerMethodInvoker`3.ResolvedInterceptorInvoker(TRequest resolvedRequest, ServerCallContext resolvedContext)',
];

/** Why a validation fails, and the exception it throws. */
const FAILURES: [reason: string, exception: (c: Ctx) => string][] = [
  [
    'signature mismatch',
    () =>
      trace(
        'Halvard.Licensing.LicenseSignatureException',
        'The license signature does not match its content; the file was edited after signing.',
        [
          'Halvard.Licensing.Validation.SignatureCheck.Verify(LicenseDocument license, RsaPublicKey key) in /src/Licensing/Validation/SignatureCheck.cs:line 72',
          ...VALIDATE_FRAMES,
        ],
      ),
  ],
  [
    'hardware id mismatch',
    (c) =>
      trace(
        'Halvard.Licensing.HardwareMismatchException',
        `License is bound to another machine; fingerprint of "${c.machine}" differs in 3 of 5 components.`,
        [
          'Halvard.Licensing.Validation.HardwareLock.Check(LicenseDocument license, MachineFingerprint fingerprint) in /src/Licensing/Validation/HardwareLock.cs:line 41',
          ...VALIDATE_FRAMES,
        ],
      ),
  ],
  [
    'license expired',
    (c) =>
      trace('Halvard.Licensing.LicenseExpiredException', `License ${c.lic.id} expired ${c.r.int(1, 90)} days ago.`, [
        'Halvard.Licensing.Validation.ExpiryCheck.Check(LicenseDocument license, DateTimeOffset now) in /src/Licensing/Validation/ExpiryCheck.cs:line 29',
        ...VALIDATE_FRAMES,
      ]),
  ],
  [
    'unknown product version',
    (c) =>
      trace(
        'Halvard.Licensing.LicenseValidationException',
        `License covers ${c.lic.productCode} up to ${c.lic.version}; client reported ${c.lic.version.replace(/^(\d+)/, (m) => String(Number(m) + 1))}.`,
        [
          'Halvard.Licensing.Validation.VersionCheck.Check(LicenseDocument license, Version clientVersion) in /src/Licensing/Validation/VersionCheck.cs:line 33',
          ...VALIDATE_FRAMES,
        ],
      ),
  ],
];

/** Every kind of event of the log, by level, Verbose to Fatal. */
export const EVENTS: EventDef[] = [
  // Verbose
  {
    level: 'Verbose',
    weight: 30,
    source: `${SVC}.LicenseStore`,
    template: 'Loading license {LicenseId} from store',
    values: (c) => ({ LicenseId: c.lic.id }),
  },
  {
    level: 'Verbose',
    weight: 25,
    source: 'Halvard.Licensing.Validation.SignatureCheck',
    template: 'Verifying signature of license {LicenseId} with key {KeyName}',
    values: (c) => ({ LicenseId: c.lic.id, KeyName: 'Demo signing key' }),
  },
  {
    level: 'Verbose',
    weight: 25,
    source: 'Halvard.Licensing.Validation.LicenseValidator',
    template: 'Evaluating {RestrictionCount} restrictions of license {LicenseId}',
    values: (c) => ({ RestrictionCount: c.r.int(1, 4), LicenseId: c.lic.id }),
  },
  // Debug
  {
    level: 'Debug',
    weight: 40,
    source: `${SVC}.LicenseEndpoint`,
    template: 'License check request from {ClientIp} for {ProductCode} {Version}',
    values: (c) => ({ ClientIp: c.ip, ProductCode: c.lic.productCode, Version: c.lic.version }),
  },
  {
    level: 'Debug',
    weight: 30,
    source: `${SVC}.LicenseCache`,
    template: 'Cache hit for license {LicenseId} ({AgeSeconds} s old)',
    values: (c) => ({ LicenseId: c.lic.id, AgeSeconds: c.r.int(1, 3600) }),
  },
  {
    level: 'Debug',
    weight: 20,
    source: `${SVC}.FloatingPool`,
    template: 'Floating pool of license {LicenseId} has {Available} of {Seats} seats free',
    floating: true,
    values: (c) => {
      const seats = c.lic.seats;
      return { LicenseId: c.lic.id, Available: c.r.int(0, seats), Seats: seats };
    },
  },
  // Information
  {
    level: 'Information',
    weight: 260,
    source: `${SVC}.LicenseEndpoint`,
    template: 'License {LicenseId} validated for {CustomerCode} on {MachineId}',
    values: licenseOnMachine,
  },
  {
    level: 'Information',
    weight: 90,
    source: `${SVC}.ActivationService`,
    template: 'License {LicenseId} activated for {CustomerCode} on {MachineId}',
    values: licenseOnMachine,
  },
  {
    level: 'Information',
    weight: 35,
    source: `${SVC}.ActivationService`,
    template: 'License {LicenseId} deactivated for {CustomerCode} on {MachineId}',
    values: licenseOnMachine,
  },
  {
    level: 'Information',
    weight: 90,
    source: `${SVC}.FloatingPool`,
    template: 'Floating license {LicenseId} granted to {UserName} on {MachineId} ({InUse} of {Seats} seats in use)',
    floating: true,
    values: (c) => ({ LicenseId: c.lic.id, UserName: c.user, MachineId: c.machine, InUse: c.r.int(1, c.lic.seats), Seats: c.lic.seats }),
  },
  {
    level: 'Information',
    weight: 80,
    source: `${SVC}.FloatingPool`,
    template: 'Floating license {LicenseId} released by {UserName} on {MachineId} after {Minutes} min',
    floating: true,
    values: (c) => ({ LicenseId: c.lic.id, UserName: c.user, MachineId: c.machine, Minutes: c.r.int(2, 540) }),
  },
  {
    level: 'Information',
    weight: 15,
    source: `${SVC}.IssuingService`,
    template: 'License {LicenseId} issued to {CustomerCode} for {ProductName} {Version}',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, ProductName: c.lic.productName, Version: c.lic.version }),
  },
  // Warning
  {
    level: 'Warning',
    weight: 40,
    source: `${SVC}.ExpiryMonitor`,
    template: 'License {LicenseId} of {CustomerCode} expires in {Days} days',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, Days: c.r.pick([30, 14, 7, 3, 2]) }),
  },
  {
    level: 'Warning',
    weight: 35,
    source: `${SVC}.ActivationService`,
    template: 'Activation refused for license {LicenseId} on {MachineId}: {Activations} of {MaxActivations} activations used',
    hot: 'leaked',
    values: (c) => {
      const max = c.r.pick([1, 2, 3, 5, 10]);
      return { LicenseId: c.lic.id, MachineId: c.machine, Activations: max, MaxActivations: max };
    },
  },
  {
    level: 'Warning',
    weight: 30,
    source: `${SVC}.FloatingPool`,
    template: 'Floating license request for {LicenseId} by {UserName} denied: all {Seats} seats in use',
    floating: true,
    hot: 'saturated',
    values: (c) => ({ LicenseId: c.lic.id, UserName: c.user, Seats: c.lic.seats }),
  },
  {
    level: 'Warning',
    weight: 20,
    source: `${SVC}.LicenseEndpoint`,
    template: 'Clock of {MachineId} is {SkewSeconds} s off the server clock (license {LicenseId})',
    values: (c) => ({ MachineId: c.machine, SkewSeconds: c.r.pick([-1, 1]) * c.r.int(120, 86_400), LicenseId: c.lic.id }),
  },
  // Error
  {
    level: 'Error',
    weight: 50,
    source: 'Halvard.Licensing.Validation.LicenseValidator',
    template: 'License validation failed for {LicenseId} of {CustomerCode} on {MachineId}: {Reason}',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode, MachineId: c.machine, Reason: c.r.pick(FAILURES)[0] }),
    exception: (c, v) => FAILURES.find(([reason]) => reason === v.Reason)![1](c),
  },
  {
    level: 'Error',
    weight: 20,
    source: `${SVC}.ActivationService`,
    template: 'Activation of license {LicenseId} failed for {CustomerCode}',
    values: (c) => ({ LicenseId: c.lic.id, CustomerCode: c.lic.customerCode }),
    exception: (c) =>
      trace('Halvard.Licensing.ActivationException', `Activation request of "${c.machine}" carried an expired nonce (replayed request?).`, [
        'Halvard.Licensing.Activation.NonceGuard.Consume(String nonce, DateTimeOffset now) in /src/Licensing/Activation/NonceGuard.cs:line 52',
        `${SVC}.ActivationService.ActivateAsync(ActivateRequest request, ServerCallContext context) in /src/Licensing.Service/ActivationService.cs:line 97`,
      ]),
  },
  {
    level: 'Error',
    weight: 12,
    source: `${SVC}.FloatingPool`,
    template: 'Could not release floating license {LicenseId} held by {MachineId}',
    floating: true,
    values: (c) => ({ LicenseId: c.lic.id, MachineId: c.machine }),
    exception: (c) =>
      trace(
        'System.InvalidOperationException',
        `No lease of license ${c.lic.id} is held by "${c.machine}"; it may have timed out already.`,
        [
          `${SVC}.FloatingPool.Release(String licenseId, String machineId) in /src/Licensing.Service/FloatingPool.cs:line 133`,
          `${SVC}.FloatingEndpoint.Release(ReleaseRequest request, ServerCallContext context) in /src/Licensing.Service/FloatingEndpoint.cs:line 58`,
        ],
      ),
  },
  // Fatal
  {
    level: 'Fatal',
    weight: 3,
    source: `${SVC}.LicenseStore`,
    template: 'License store unavailable; {Operation} aborted after {Attempts} attempts',
    values: (c) => ({ Operation: c.r.pick(['validation', 'activation', 'floating lease']), Attempts: 5 }),
    exception: () =>
      trace('Microsoft.Data.Sqlite.SqliteException', "SQLite Error 5: 'database is locked'.", [
        'Microsoft.Data.Sqlite.SqliteException.ThrowExceptionForRC(Int32 rc, sqlite3 db)',
        'Microsoft.Data.Sqlite.SqliteDataReader.NextResult()',
        `${SVC}.LicenseStore.FindAsync(String licenseId, CancellationToken ct) in /src/Licensing.Service/LicenseStore.cs:line 88`,
      ]),
  },
  {
    level: 'Fatal',
    weight: 1,
    source: `${SVC}.SigningKeys`,
    template: 'Signing key {KeyName} could not be loaded',
    values: () => ({ KeyName: 'Demo signing key' }),
    exception: () =>
      trace('System.Security.Cryptography.CryptographicException', 'Bad Version of provider.', [
        'System.Security.Cryptography.CapiHelper.ImportKeyBlob(SafeProvHandle saveProvHandle, CspProviderFlags flags, Boolean addNoSaltFlag, Byte[] keyBlob)',
        `${SVC}.SigningKeys.Load(Resource resource) in /src/Licensing.Service/SigningKeys.cs:line 47`,
      ]),
  },
];
