import { UsageError } from '../errors.js';
import { redactSourceName } from '../secret-url.js';

/** A Kafka topic and the brokers to bootstrap from, as `kafka://HOST:PORT[,HOST:PORT...]/TOPIC` names them. */
export interface KafkaAddress {
  brokers: string[];
  topic: string;
}

// Kafka's own rule for topic names: letters, digits, '.', '_' and '-', at most 249 characters.
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;
const BROKER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** Parses `kafka://HOST:PORT[,HOST:PORT...]/TOPIC`; `what` is the setting (or argument) the error names. */
export function parseKafkaAddress(text: string, what: string): KafkaAddress {
  const shown = redactSourceName(text);
  const bad = (why: string): UsageError =>
    new UsageError((name) => `${name(what)} ${JSON.stringify(shown)}: ${why} (expected kafka://HOST:PORT[,HOST:PORT...]/TOPIC)`, { setting: { key: what, value: shown } });
  if (!text.startsWith('kafka://')) throw bad('not a kafka:// address');
  const rest = text.slice('kafka://'.length);
  const slash = rest.indexOf('/');
  if (slash < 0) throw bad('no topic');
  const hosts = rest.slice(0, slash);
  const topic = rest.slice(slash + 1);
  if (!TOPIC.test(topic)) throw bad('a topic name is 1 to 249 letters, digits, ".", "_" or "-"');
  // Credentials in the address would be shown wherever the source is: they have their own variables.
  if (hosts.includes('@')) throw bad('a broker address holds no credentials (user:password@); set LISTINGS_KAFKA_USERNAME and LISTINGS_KAFKA_PASSWORD');
  const brokers = hosts.split(',').map((broker) => broker.trim());
  for (const broker of brokers) {
    const match = BROKER.exec(broker);
    if (match === null) throw bad(`"${broker}" is not HOST:PORT`);
    const port = Number(match[2]);
    if (port < 1 || port > 65535) throw bad(`port ${port} is out of range`);
  }
  return { brokers, topic };
}

export function isKafkaAddress(text: string): boolean {
  return text.startsWith('kafka://');
}
