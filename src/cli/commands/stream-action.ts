import { parseKafkaAddress, isKafkaAddress } from '../../stream/kafka-address.js';
import { kafkaSecurityFromEnv } from '../../stream/kafka-security.js';
import { parseAdminAddress } from '../../stream/admin-address.js';
import type { StreamRun } from '../../stream/stream-listings.js';
import { deadLetterFields, deadLetterLine, PublishRate, streamEndLines, streamStatusFields, streamStatusLine } from '../../run/stream-status.js';
import { defaultDeadLetter, observersOf, runStreamSpec, type StreamResult } from '../../run/stream-run.js';
import { sendingPolicyOf } from '../../run/sending-policy.js';
import { defaultMarketplaces } from '../../prepare/fan-out.js';
import { ListingsError, UsageError } from '../../errors.js';
import { printable } from '../../printable.js';
import { printNextStep } from '../next-step.js';
import { cliName } from '../setting-flags.js';
import { EXIT, ExitError } from '../exit-codes.js';
import { err, paint } from '../output.js';
import { openRunLog } from '../log-events.js';
import { streamStartOf } from '../../run/run-start.js';
import type { RunLog } from '../../run/log-events.js';
import { count, duration, LiveLine, progressMode, type ProgressMode } from '../progress.js';
import { trapSignals } from '../signals.js';
import { catalogOptionsFrom } from '../catalog-options.js';
import { wordError } from '../report-error.js';
import type { LoadedSettings } from '../settings.js';
import { openEndpoint, sandboxFaultsOf } from './open-endpoint.js';
import type { StreamFlags } from './stream-flags.js';

/** Dead letters told one by one; beyond these, the status lines count them. */
const DEAD_LETTERS_SHOWN = 50;

/** Draws the status: a live line on a terminal, a plain line every interval otherwise, JSON events with --log-format json. */
async function startStatus(run: StreamRun, mode: ProgressMode | 'json', intervalS: number, log: RunLog): Promise<LiveLine> {
  const rate = new PublishRate();
  const line = (): string => {
    const stats = run.stats();
    return streamStatusLine(stats, rate.of(stats));
  };
  const event = (): void => {
    const stats = run.stats();
    log.event('stream_status', streamStatusFields(stats, rate.of(stats)));
  };
  const plain = mode === 'json' ? event : () => err(`status: ${line()}`);
  return new LiveLine().begin({ mode: mode === 'json' ? 'plain' : mode, first: 'joining the consumer group', line, plain, spinnerEveryMs: 500, plainEveryMs: intervalS * 1000 });
}

/** `listings stream kafka://.../TOPIC --group NAME`: runs until a signal, the service's end, or Kafka's. */
export async function runStream(source: string, flags: StreamFlags, load: () => Promise<LoadedSettings>, repeat: readonly string[] = []): Promise<void> {
  if (!isKafkaAddress(source)) throw new UsageError(`${JSON.stringify(source)} is not a Kafka topic: listings stream reads kafka://HOST:PORT[,HOST:PORT...]/TOPIC (files and URLs are for listings publish)`);
  const address = parseKafkaAddress(source, 'source');
  if (flags.group.trim() === '') throw new UsageError('--group must not be empty');
  await sandboxFaultsOf(flags);
  if (flags.deadLetter !== undefined && isKafkaAddress(flags.deadLetter)) parseKafkaAddress(flags.deadLetter, '--dead-letter');
  const catalog = await catalogOptionsFrom({ map: flags.map, ...(flags.mapping === undefined ? {} : { mapping: flags.mapping }), ...(flags.listSeparator === undefined ? {} : { listSeparator: flags.listSeparator }), ...(flags.preset === undefined ? {} : { preset: flags.preset }), sourceHeader: [] });
  const security = kafkaSecurityFromEnv(process.env, flags.kafkaTls);
  const loaded = await load();
  const { concurrency, max_concurrency: maxConcurrency } = loaded.settings;
  const deadLetter = flags.deadLetter ?? defaultDeadLetter(address.topic, flags.group);
  // The admin endpoint first: a port in use fails before anything is consumed. Not ready until the group is joined.
  const made: { run?: StreamRun } = {};
  const adminListen = flags.adminListen ?? process.env.LISTINGS_ADMIN_LISTEN;
  const admin = adminListen === undefined || adminListen === '' ? undefined : await (await import('../../stream/worker-admin.js')).openWorkerAdmin(parseAdminAddress(adminListen), () => made.run?.stats());
  const endpoint = await openEndpoint(flags, loaded, concurrency ?? maxConcurrency);
  const json = flags.logFormat === 'json';
  const quiet = flags.quiet === true;
  const mode = json ? 'json' : quiet ? 'off' : progressMode(false);
  let status: LiveLine | undefined;
  const note = (line: string): void => (status === undefined ? err(line) : status.note(line));
  // --log-format json: the events of publish and validate (run_start, retry, limit, pace, summary: src/run/log-events.ts), and stream's own.
  const log = openRunLog({ format: flags.logFormat, verbose: false, debug: false, path: endpoint.client.endpoint.path, note });
  const signals = trapSignals((n) => {
    const line = n === 1 ? 'stopping: no new messages are read; waiting for the requests in flight, then committing (Ctrl-C again to abandon them)' : 'abandoning the requests in flight; committing what is done';
    if (json) log.event('stopping', { abandon: n > 1 });
    else note(line);
  });
  const started = (): void => {
    if (json) {
      log.start(streamStartOf(`kafka://${address.brokers.join(',')}/${address.topic}`, { ...flags, deadLetter }, loaded, endpoint.client.endpoint.origin));
    } else if (!quiet) note(`streaming ${address.topic} in group ${flags.group} to ${endpoint.sandbox === undefined ? URL.parse(loaded.baseUrl())?.host : 'an embedded sandbox'}; failed and invalid messages go to ${deadLetter}`);
    if (admin !== undefined) {
      if (json) log.event('admin', { url: admin.url });
      else if (!quiet) note(`health, readiness and metrics at ${admin.url}/healthz, /readyz, /metrics`);
    }
  };
  let shown = 0;
  const fanOut = defaultMarketplaces(loaded.defaults).length > 1;
  let result: StreamResult;
  try {
    result = await runStreamSpec({
      source,
      group: flags.group,
      mapping: { ...(catalog.map === undefined ? {} : { map: catalog.map }), ...(catalog.listSeparator === undefined ? {} : { listSeparator: catalog.listSeparator }), ...(flags.preset === undefined ? {} : { preset: flags.preset }) },
      target: { defaults: loaded.defaults, sender: endpoint.client },
      sending: sendingPolicyOf({ concurrency, maxConcurrency, rate: flags.rate, giveUpAfterSeconds: flags.giveUpAfter, maxAttempts: flags.maxAttempts }),
      deadLetter,
      outputs: { name: cliName, repeat },
      kafka: { fromBeginning: flags.from === 'earliest', commitIntervalMs: flags.commitInterval, maxBuffered: flags.maxBuffered, sessionTimeoutMs: flags.sessionTimeout, security, drainTimeoutMs: flags.drainTimeout * 1000 },
      watcher: {
        stop: signals.stop,
        abandon: signals.abandon,
        ...observersOf(log.observer, admin?.observe),
        onLog: (level, message) => {
          if (json) log.event('kafka', { level, message });
          else if (level !== 'info' || !quiet) note(level === 'info' ? message : `${level === 'error' ? paint.red('error') : paint.yellow('warning')} ${message}`);
        },
        onStart: async (run) => {
          made.run = run;
          started();
          status = await startStatus(run, mode, flags.statusInterval, log);
        },
        onOutcome: (outcome) => {
          if (!outcome.deadLettered) return;
          if (json) log.event('dead_letter', deadLetterFields(outcome));
          else if (shown++ < DEAD_LETTERS_SHOWN) note(`${paint.yellow('warning')} ${deadLetterLine(outcome, fanOut)}${shown === DEAD_LETTERS_SHOWN ? ` (the rest are counted, not shown; all are in ${deadLetter})` : ''}`);
        },
      },
    });
  } finally {
    status?.stop();
    await admin?.close();
    log.close();
    signals.dispose();
    if (signals.abandon.aborted) await endpoint.client.destroy();
    else await endpoint.client.close();
    await endpoint.sandbox?.close();
  }
  const { stats, end, summary, verdict, nextStep: step } = result;
  log.finish({ kind: summary.end, ...(end.kind === 'systemic' ? { reason: end.reason } : {}) }, summary, verdict, flags.json === true, step);
  if (!json) {
    err(`${count(stats.received)} received · ${paint.green(`${count(stats.published)} published`)} · ${stats.deadLettered > 0 ? paint.yellow(`${count(stats.deadLettered)} dead-lettered`) : '0 dead-lettered'} · ${count(summary.left_uncommitted)} left for the next reader · in ${duration(summary.duration_ms)}`);
    for (const line of streamEndLines(stats, summary)) err(line);
  }
  if (!json && end.kind === 'systemic') {
    err(`${paint.red('error')} the service is unusable: ${end.reason}; stopped after committing what was done`);
    if (end.hint !== undefined) err(`${paint.dim('hint')}  ${end.hint}`);
  }
  if (!json && end.kind === 'source') {
    const message = end.error instanceof ListingsError ? wordError(end.error).message : ((end.error as Error).message ?? String(end.error));
    err(`${paint.red('error')} Kafka: ${printable(message)}`);
  }
  if (!json) printNextStep(step);
  if (verdict.exitCode !== EXIT.ok) throw new ExitError(verdict.exitCode);
}
