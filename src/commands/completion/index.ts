import { Argument, type Command } from 'commander';
import type { CommandDeps } from '../../cli/deps.js';
import { SHELLS, completionScript, type Shell } from './generate.js';

/** `lic completion SHELL`: prints the completion script (generated from the command tree). */
export function registerCompletion(program: Command, deps: CommandDeps): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh, fish)')
    .addArgument(new Argument('<shell>', 'shell').choices(SHELLS))
    .addHelpText(
      'after',
      '\nExamples:\n  lic completion bash > ~/.local/share/bash-completion/completions/lic\n  lic completion zsh > "${fpath[1]}/_lic"\n  lic completion fish > ~/.config/fish/completions/lic.fish',
    )
    .action((shell: Shell) => {
      deps.ctx.stdout.write(completionScript(program, shell));
    });
}
