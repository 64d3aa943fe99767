/**
 * A state file value that YAML reads as a number where the field takes a string: the hint
 * says how to quote it so that it then passes (docs/state.md, "Validation first"), keeping
 * the value as written: `version: 1.0` must not become `'1'`, a token's leading zeros stay.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFor, runCli, tempDir } from '../../helpers/cli.js';
import { useService } from '../../helpers/fixtures.js';

const { svc } = useService();
const dir = tempDir('lic-state-hints-');

/** `lic diff -f` of a file holding one assembly with `fields` (YAML lines, as written). */
async function diff(name: string, fields: string) {
  const file = join(dir, name);
  writeFileSync(file, `version: 1\nassemblies:\n  - name: MyLib\n${fields}`);
  return runCli(['diff', '-f', file], { env: envFor(svc, svc.adminKey) });
}

/** The hint's suggestion, e.g. `'1.0.0.0'` from `(quote it: '1.0.0.0')`. */
const suggested = (stderr: string) => /\(quote it: ('[^']*')\)/.exec(stderr)?.[1];

describe('the quote-it hint of a state file', () => {
  it.each([
    ['version: 1.0', 'version', "'1.0.0.0'"],
    ['version: 2', 'version', "'2.0.0.0'"],
    ['version: 1.0.0.0\n    publicKeyToken: 0000000000000012', 'publicKeyToken', "'0000000000000012'"],
    ['version: 1.0.0.0\n    culture: 1.10', 'culture', "'1.10'"],
  ])('%s: suggests what works, as written', async (fields, field, quoted) => {
    const bad = await diff(`${field}.yaml`, `    ${fields}\n`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`assemblies[0].${field}: must be string`);
    expect(suggested(bad.stderr)).toBe(quoted);
    // the file with the suggestion applied passes validation: diff reads the service and plans a create
    const good = await diff(`${field}-quoted.yaml`, `    ${fields}\n`.replace(new RegExp(`(${field}: )(.*)`), `$1${quoted}`));
    expect(good.stderr).not.toContain('invalid state file');
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('+ create assembly "MyLib');
  });
});
