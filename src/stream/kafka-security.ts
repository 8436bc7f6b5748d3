import { ConfigError } from '../errors.js';
import { registerSecret } from '../secrets.js';

export const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

/** How to reach the brokers: TLS (with the system's CAs and NODE_EXTRA_CA_CERTS), and SASL credentials. */
export interface KafkaSecurity {
  tls?: boolean;
  sasl?: { mechanism: SaslMechanism; username: string; password: string };
}

/**
 * The security of the environment's variables: LISTINGS_KAFKA_SASL_MECHANISM (plain, scram-sha-256,
 * scram-sha-512), LISTINGS_KAFKA_USERNAME and LISTINGS_KAFKA_PASSWORD (a secret: registered, so never printed);
 * LISTINGS_KAFKA_TLS=1 or `tls` for TLS. Throws ConfigError for a half-given or unknown setting.
 */
export function kafkaSecurityFromEnv(env: Record<string, string | undefined>, tls: boolean | undefined): KafkaSecurity {
  const security: KafkaSecurity = {};
  const tlsEnv = env.LISTINGS_KAFKA_TLS;
  if (tls === true || (tlsEnv !== undefined && ['1', 'true', 'yes'].includes(tlsEnv.toLowerCase()))) security.tls = true;
  const mechanism = env.LISTINGS_KAFKA_SASL_MECHANISM?.toLowerCase();
  const username = env.LISTINGS_KAFKA_USERNAME;
  const password = env.LISTINGS_KAFKA_PASSWORD;
  if (password) registerSecret(password);
  if (mechanism === undefined || mechanism === '') {
    if (username || password) throw new ConfigError('LISTINGS_KAFKA_USERNAME/PASSWORD are set but LISTINGS_KAFKA_SASL_MECHANISM is not', { hint: `set it to one of ${SASL_MECHANISMS.join(', ')}` });
    return security;
  }
  if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
    throw new ConfigError(`LISTINGS_KAFKA_SASL_MECHANISM ${JSON.stringify(mechanism)} is not supported`, { hint: `one of ${SASL_MECHANISMS.join(', ')}` });
  }
  if (!username || !password) throw new ConfigError(`SASL ${mechanism} needs LISTINGS_KAFKA_USERNAME and LISTINGS_KAFKA_PASSWORD`);
  security.sasl = { mechanism: mechanism as SaslMechanism, username, password };
  return security;
}
