import type { Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { registerTemplatesList } from './list.js';
import { registerTemplatesShow } from './show.js';

/** `lic templates`: license templates of a product release, read-only (contract §8). */
export function registerTemplates(program: Command, deps: CommandDeps): void {
  const templates = program
    .command('templates')
    .description('Read the license templates of a product release (Administrator, LicenseManager)')
    .addHelpText(
      'after',
      '\nExamples:\n  lic templates list --product 1 --release 2\n  lic templates show 3 --product 1 --release 2 > license-template.xml',
    );
  registerTemplatesList(templates, deps);
  registerTemplatesShow(templates, deps);
}
