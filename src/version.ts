import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The package version, read from package.json once. By the package's own name, not a relative path: the CLI's
 * bundle (dist/bundle/) runs this module from another folder than dist/.
 */
export const VERSION: string = (require('listings-cli/package.json') as { version: string }).version;
