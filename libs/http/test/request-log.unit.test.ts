import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { installRequestContext } from '../src/request-context';

/** A logger at `level` whose lines are kept, parsed. */
function recordingLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}

async function served(level: string) {
  const { logger, lines } = recordingLogger(level);
  const fastify = Fastify();
  installRequestContext(fastify, logger);
  fastify.get('/api/things/:id', async () => ({ ok: true }));
  await fastify.ready();
  const response = await fastify.inject({ method: 'GET', url: '/api/things/7' });
  await fastify.close();
  return { response, lines };
}

describe('the request log line', () => {
  it('is written at info with the method, URL, route template, status and duration', async () => {
    const { response, lines } = await served('info');
    expect(response.statusCode).toBe(200);
    const line = lines.find((l) => l.msg === 'request');
    expect(line).toMatchObject({
      method: 'GET',
      url: '/api/things/7',
      route: '/api/things/:id',
      status: 200,
    });
    expect(typeof line?.durationMs).toBe('number');
  });

  it('is left out at a level above info, and the request is answered as before', async () => {
    const { response, lines } = await served('warn');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-correlation-id']).toEqual(expect.any(String));
    expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
  });
});
