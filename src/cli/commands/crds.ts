import { Command } from 'commander';

// Placeholder until src/api generates the CRDs; replaced by the API work.
export function command(): Command {
  return new Command('crds').option('--check', 'exit non-zero when crds/ differs from the schemas').action(() => {});
}
