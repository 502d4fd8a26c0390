import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The deployment the repository ships, read as an operator would run it: what it publishes,
 * which credentials each service gets, and that every service runs production rules.
 */
interface ComposeService {
  build?: unknown;
  depends_on?: Record<string, { condition: string }>;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
}

const root = resolve(__dirname, '../..');
const compose = parse(readFileSync(resolve(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = Object.entries(compose.services);
/** The stack's own processes (built from this repository), as opposed to NATS, Postgres and Redis. */
const appServices = services.filter(([, s]) => s.build);
const natsServices = services.filter(([, s]) => s.image?.startsWith('nats:'));
const natsConfig = readFileSync(resolve(root, 'infra/nats/nats-server.conf'), 'utf8');
const natsPasswordVariables = [...new Set(natsConfig.match(/\$NATS_\w+_PASSWORD/g)!.map((v) => v.slice(1)))];

/** Only these are for clients: each service's public HTTP port (container side). */
const publicPorts: Record<string, string> = { gateway: '3000', search: '3000' };

/** `${NAME:?message}`: compose refuses to start while NAME is unset or empty. */
const required = (name: string) => new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`);
const embedsRequired = (name: string) => new RegExp(`\\$\\{${name}:\\?[^}]+\\}`);

describe('docker-compose.yml', () => {
  it('publishes only the gateway and search HTTP ports; everything else, if at all, on loopback', () => {
    const exposed = services.flatMap(([name, service]) =>
      (service.ports ?? [])
        .filter((port) => !port.startsWith('127.0.0.1:'))
        .filter((port) => port.split(':').at(-1) !== publicPorts[name])
        .map((port) => `${name} ${port}`),
    );
    expect(exposed).toEqual([]);
    for (const data of ['postgres', 'redis', ...natsServices.map(([name]) => name)]) {
      expect([data, compose.services[data]?.ports ?? []]).toEqual([data, []]);
    }
  });

  it('runs every service with NODE_ENV=production', () => {
    expect(appServices.length).toBeGreaterThan(0);
    for (const [name, service] of appServices) {
      expect([name, service.environment?.NODE_ENV]).toEqual([name, 'production']);
    }
  });

  it('gives every service its own NATS user, whose password compose requires', () => {
    for (const [name, service] of appServices) {
      const env = service.environment ?? {};
      expect([name, env.NATS_USER]).toEqual([name, name]);
      const variable = `NATS_${name.toUpperCase().replace(/-/g, '_')}_PASSWORD`;
      expect(natsPasswordVariables).toContain(variable);
      expect([name, env.NATS_PASSWORD]).toEqual([name, expect.stringMatching(required(variable))]);
    }
  });

  it('gives every service the Postgres and Redis passwords and the production keys, which compose requires', () => {
    for (const [name, service] of appServices) {
      const env = service.environment ?? {};
      expect([name, env.DATABASE_URL]).toEqual([
        name,
        expect.stringMatching(embedsRequired('POSTGRES_PASSWORD')),
      ]);
      expect([name, env.REDIS_URL]).toEqual([name, expect.stringMatching(embedsRequired('REDIS_PASSWORD'))]);
      expect([name, env.DATA_ENCRYPTION_KEY]).toEqual([
        name,
        expect.stringMatching(required('DATA_ENCRYPTION_KEY')),
      ]);
    }
    const gateway = compose.services.gateway!.environment!;
    for (const variable of ['WALLET_ENCRYPTION_KEY', 'PROVIDER_JWT_ISSUER', 'PROVIDER_JWT_AUDIENCE']) {
      expect([variable, gateway[variable]]).toEqual([variable, expect.stringMatching(required(variable))]);
    }
  });

  it("makes the operator name the gateway's catalogue, and passes the chat model's settings for it to check", () => {
    const gateway = compose.services.gateway!.environment!;
    expect(gateway.PRODUCT_SERVICE).toMatch(required('PRODUCT_SERVICE'));
    for (const variable of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CHAT_MODEL'])
      expect([variable, gateway[variable]]).toEqual([variable, `\${${variable}:-}`]);
  });

  it('runs Postgres and Redis with passwords compose requires', () => {
    const postgres = compose.services.postgres!;
    expect(postgres.environment?.POSTGRES_PASSWORD).toMatch(required('POSTGRES_PASSWORD'));
    expect(postgres.environment?.POSTGRES_HOST_AUTH_METHOD).toBeUndefined();
    const redis = compose.services.redis!;
    expect(redis.environment?.REDIS_PASSWORD).toMatch(required('REDIS_PASSWORD'));
    expect(redis.command?.join(' ')).toContain('--requirepass "$$REDIS_PASSWORD"');
  });

  it('starts every NATS server with the shipped configuration and every password it names', () => {
    expect(natsServices.length).toBeGreaterThan(0);
    for (const [name, service] of natsServices) {
      expect([name, service.volumes]).toEqual([
        name,
        expect.arrayContaining(['./infra/nats/nats-server.conf:/etc/nats/nats-server.conf:ro']),
      ]);
      const command = service.command ?? [];
      expect([name, command[command.indexOf('-c') + 1]]).toEqual([name, '/etc/nats/nats-server.conf']);
      for (const variable of natsPasswordVariables) {
        expect([name, variable, service.environment?.[variable]]).toEqual([
          name,
          variable,
          expect.stringMatching(required(variable)),
        ]);
      }
    }
  });

  it('runs the operator step under the operator user once, before every other service of the stack starts', () => {
    const operator = compose.services.operator!;
    expect([operator.environment?.NATS_USER, operator.command]).toEqual([
      'operator',
      ['node', 'services/projector/dist/operator-main.js'],
    ]);
    for (const [name, service] of appServices.filter(([name]) => name !== 'operator')) {
      expect([name, service.depends_on?.operator]).toEqual([
        name,
        { condition: 'service_completed_successfully' },
      ]);
    }
  });
});
