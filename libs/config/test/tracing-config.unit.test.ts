import { describe, expect, it } from 'vitest';
import { ConfigError, enabledInstrumentations, loadConfig, tracesExporter, tracingEnv } from '../src';

const exporterFor = (env: Record<string, string>) => tracesExporter(loadConfig(tracingEnv, env));

describe('whether a process traces', () => {
  it('is off when the operator configures no exporter', () => {
    expect(exporterFor({})).toBeNull();
    expect(exporterFor({ OTEL_SERVICE_NAME: 'gateway' })).toBeNull();
  });

  it('exports over OTLP to an endpoint the operator names, or with the exporter named', () => {
    expect(exporterFor({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('otlp');
    expect(exporterFor({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(
      'otlp',
    );
    expect(exporterFor({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe('otlp');
    expect(exporterFor({ OTEL_TRACES_EXPORTER: 'console' })).toBe('console');
  });

  it('stays off when told so, whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(exporterFor({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(exporterFor({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('traces HTTP in and out unless told otherwise, and queries only when named', () => {
    const enabled = (env: Record<string, string>) => enabledInstrumentations(loadConfig(tracingEnv, env));
    expect(enabled({})).toEqual(['fastify', 'http', 'undici']);
    expect(enabled({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http, undici, pg,ioredis' })).toEqual([
      'http',
      'undici',
      'pg',
      'ioredis',
    ]);
    expect(
      enabled({
        OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,undici,pg,ioredis',
        OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg',
      }),
    ).toEqual(['http', 'undici', 'ioredis']);
  });

  it('refuses an exporter it does not have and an endpoint that is not a URL', () => {
    expect(() => exporterFor({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(ConfigError);
    expect(() => exporterFor({ OTEL_EXPORTER_OTLP_ENDPOINT: 'the collector' })).toThrow(ConfigError);
  });
});
