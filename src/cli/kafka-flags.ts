import type { Command } from 'commander';

/** How to reach the brokers, shared by `stream` and `enqueue`: TLS here, SASL from the environment (kafka-security.ts). */
export function addKafkaSecurityFlags(command: Command): Command {
  return command.option('--kafka-tls', 'connect to the brokers over TLS (env LISTINGS_KAFKA_TLS=1; SASL from LISTINGS_KAFKA_SASL_MECHANISM, LISTINGS_KAFKA_USERNAME, LISTINGS_KAFKA_PASSWORD)');
}
