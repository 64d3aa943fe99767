// Regenerates completions/lic.{bash,zsh,fish} from the built CLI (`npm run completions`).
// test/commands/completion checks that the committed files match what the CLI prints.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/lic.js', import.meta.url));
const names = { bash: 'lic.bash', zsh: '_lic', fish: 'lic.fish' };
for (const [shell, file] of Object.entries(names)) {
  const r = spawnSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`lic completion ${shell} failed: ${r.stderr}`);
  writeFileSync(new URL(`../completions/${file}`, import.meta.url), r.stdout);
}
