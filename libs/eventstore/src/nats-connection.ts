import { readFileSync } from 'node:fs';
import { connect, ConnectionOptions, credsAuthenticator, NatsConnection } from 'nats';

/**
 * Where NATS is and who this process is to it (libs/config's sharedEnv parses these). A bare URL
 * connects without credentials, as the open development and test servers allow.
 */
export interface NatsSettings {
  NATS_URL: string;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  /** A credentials file (user JWT and nkey seed), read at connect time so it never sits in the image. */
  NATS_CREDS?: string;
  NATS_TLS_CA?: string;
  NATS_TLS_CERT?: string;
  NATS_TLS_KEY?: string;
}

function identity(settings: NatsSettings): Partial<ConnectionOptions> {
  const options: Partial<ConnectionOptions> = {};
  if (settings.NATS_CREDS) options.authenticator = credsAuthenticator(readFileSync(settings.NATS_CREDS));
  else if (settings.NATS_USER) {
    // Replies come back under the user's own prefix, the only inbox its permissions let it read:
    // no other process can see them, nor the acknowledgement subjects of its consumers.
    Object.assign(options, {
      user: settings.NATS_USER,
      pass: settings.NATS_PASSWORD,
      inboxPrefix: `_INBOX_${settings.NATS_USER}`,
    });
  }
  if (settings.NATS_TLS_CA || settings.NATS_TLS_CERT) {
    options.tls = {
      ...(settings.NATS_TLS_CA ? { caFile: settings.NATS_TLS_CA } : {}),
      ...(settings.NATS_TLS_CERT ? { certFile: settings.NATS_TLS_CERT, keyFile: settings.NATS_TLS_KEY } : {}),
    };
  }
  return options;
}

/** One connection per process; it reconnects forever so a NATS restart is survived. */
export async function connectNats(settings: string | NatsSettings, name: string): Promise<NatsConnection> {
  const resolved = typeof settings === 'string' ? { NATS_URL: settings } : settings;
  return connect({
    servers: resolved.NATS_URL.split(','),
    name,
    ...identity(resolved),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: false,
    // Otherwise every request (each publish with its acknowledgement, each stream get) captures
    // two stack traces up front in case it fails: a measurable share of a command's CPU.
    noAsyncTraces: true,
  });
}
