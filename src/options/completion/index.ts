import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import type { CompletionCommand, Shell } from './tree.js';
import { zshScript } from './zsh.js';

export { SHELLS, menuLine, type CompletionCommand, type CompletionFlag, type Shell, type Values } from './tree.js';

/** The completion script of `shell` for a tree of commands: their options, choices, files and profiles. */
export function completionScript(shell: Shell, root: CompletionCommand): string {
  switch (shell) {
    case 'bash':
      return bashScript(root);
    case 'zsh':
      return zshScript(root);
    case 'fish':
      return fishScript(root);
  }
}
