import type { Command } from 'commander';
import { whole } from '../option-parsers.js';
import { GROUP } from '../help.js';
import type { ListenFlags } from './listen-action.js';

// The defaults are written here for the help text; the listener applies its own (src/listen/options.ts), which a
// unit test keeps equal to these.
export const LISTEN_HELP_DEFAULTS = { port: 8787, host: '127.0.0.1', path: '/', signatureHeader: 'Listings-Signature', tolerance: 300, maxBody: 1024 * 1024, maxConnections: 256, requestTimeout: 15 } as const;

export function registerListen(program: Command): void {
  program
    .command('listen')
    .description("receive the service's webhook callbacks on this machine: print each one, answer 2xx, forward it to a local app and record it; --replay sends a recording again")
    .optionsGroup('Receiving options:')
    .option('--port <port>', `port to listen on; 0 picks a free one (default ${LISTEN_HELP_DEFAULTS.port})`, whole(0, 65535))
    .option('--host <host>', `interface to listen on (default ${LISTEN_HELP_DEFAULTS.host}); another than loopback needs --secret-env or --allow-unsigned`)
    .option('--path <path>', `path callbacks arrive at; / takes every path (default ${LISTEN_HELP_DEFAULTS.path})`)
    .option('--max-body <bytes>', `largest body accepted; larger ones get 413 (default ${LISTEN_HELP_DEFAULTS.maxBody})`, whole(1, 1024 * 1024 * 1024))
    .option('--max-connections <n>', `connections open at once; more are closed as they arrive (default ${LISTEN_HELP_DEFAULTS.maxConnections})`, whole(1, 1_000_000))
    .option('--request-timeout <seconds>', `time a request may take to arrive whole, and an idle connection is kept; a slower one gets 408 (default ${LISTEN_HELP_DEFAULTS.requestTimeout})`, whole(1, 3600))
    .optionsGroup('Signature options:')
    .option('--secret-env <name>', 'verify signatures with the secret in this environment variable; unsigned or badly signed callbacks get 401')
    .option('--allow-unsigned', 'receive unsigned callbacks on a --host other machines can reach (a warning is printed)')
    .option('--signature-header <name>', `header of the signature t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body"> (default ${LISTEN_HELP_DEFAULTS.signatureHeader})`)
    .option('--tolerance <seconds>', `how far a signature's timestamp may be from now (default ${LISTEN_HELP_DEFAULTS.tolerance})`, whole(1, 31_536_000))
    .optionsGroup('Forwarding options:')
    .option('--forward-to <url>', 'send each callback on to this URL: same method, headers (without credentials) and body bytes')
    .option('--record <file>', 'append each callback to this NDJSON file, body byte for byte, for --replay')
    .option('--replay <file>', 'send the callbacks of a recording to --forward-to, in order, then exit (1 when one failed)')
    .optionsGroup(GROUP.output)
    .option('--json', 'one JSON object per callback on stdout (NDJSON)')
    .optionsGroup('')
    .action(async (flags: ListenFlags) => {
      const { runListen } = await import('./listen-action.js');
      await runListen(flags);
    });
}
