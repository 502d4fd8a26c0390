import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import { Controller, Get, Module, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeConnectionsWhenClosing } from '../src';

/** Far beyond anything the test waits for: a close that waits for it never returns in time. */
const keepAliveTimeoutMs = 60_000;
/** The generous bound on `app.close()`: well before the keep-alive timeout. */
const closeBoundMs = keepAliveTimeoutMs / 4;

/** Resolves the next request `/slow` holds (and the function that answers it). */
let slowRequestArrived: (answer: () => void) => void = () => undefined;

@Controller()
class ProbeController {
  @Get('ping')
  ping() {
    return { ok: true };
  }

  /** Answers only when the test says so. */
  @Get('slow')
  slow(@Res() reply: FastifyReply): void {
    slowRequestArrived(() => void reply.send({ ok: 'late' }));
  }

  /** Streams a first line and never ends, like a chat stream in progress. */
  @Get('stream')
  stream(@Res() reply: FastifyReply): void {
    reply.raw.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    reply.raw.write('first line\n');
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

let app: NestFastifyApplication;
let port: number;
let agent: http.Agent;

beforeEach(async () => {
  const adapter = new FastifyAdapter({
    logger: false,
    keepAliveTimeout: keepAliveTimeoutMs,
    connectionTimeout: keepAliveTimeoutMs,
    forceCloseConnections: 'idle',
  });
  closeConnectionsWhenClosing(adapter.getInstance(), { drainMs: 300 });
  app = await NestFactory.create<NestFastifyApplication>(ProbeModule, adapter, { logger: false });
  await app.listen(0, '127.0.0.1');
  port = (app.getHttpServer().address() as AddressInfo).port;
  agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
});

afterEach(async () => {
  agent.destroy();
  await app.close().catch(() => undefined);
});

interface Answer {
  response: http.IncomingMessage;
  socket: Socket;
  socketClosed: Promise<unknown>;
}

/** Sends a GET through the keep-alive agent; resolves once the response head is in. */
function get(path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent }, (response) => {
      const socket = request.socket!;
      resolve({ response, socket, socketClosed: socket.closed ? Promise.resolve() : once(socket, 'close') });
    });
    request.on('error', reject);
  });
}

const bodyOf = async (response: http.IncomingMessage) => {
  let body = '';
  for await (const chunk of response) body += String(chunk);
  return body;
};

/** `app.close()`, or a failure once the bound passes: the keep-alive timeout is never reached. */
async function closeWithinBound(): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const tooLate = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('app.close() waited for a client connection')), closeBoundMs);
  });
  try {
    await Promise.race([app.close(), tooLate]);
  } finally {
    clearTimeout(timer);
  }
}

describe('closeConnectionsWhenClosing', () => {
  it('closes an idle keep-alive connection when the app closes', async () => {
    const { response, socket, socketClosed } = await get('/ping');
    expect(await bodyOf(response)).toBe('{"ok":true}');
    expect(response.headers.connection).toBe('keep-alive');
    expect(socket.destroyed).toBe(false);

    await closeWithinBound();
    await socketClosed;
    expect(socket.destroyed).toBe(true);
  }, 30_000);

  it('lets a request in hand finish, then ends its connection with the response', async () => {
    const arrived = new Promise<() => void>((resolve) => (slowRequestArrived = resolve));
    const answer = get('/slow');
    const respond = await arrived;

    const closed = closeWithinBound();
    // The server stops listening once Fastify's preClose hooks have run: closing has begun.
    const server = app.getHttpServer();
    while (server.listening) await new Promise((resolve) => setTimeout(resolve, 5));
    respond();
    const { response, socket, socketClosed } = await answer;
    expect(response.statusCode).toBe(200);
    expect(response.headers.connection).toBe('close');
    expect(await bodyOf(response)).toBe('{"ok":"late"}');

    await closed;
    await socketClosed;
    expect(socket.destroyed).toBe(true);
  }, 30_000);

  it('ends an open streaming response when the app closes', async () => {
    const { response, socket, socketClosed } = await get('/stream');
    const [first] = (await once(response, 'data')) as [Buffer];
    expect(String(first)).toBe('first line\n');
    const ended = new Promise<string>((resolve) => {
      response.on('aborted', () => resolve('aborted'));
      response.on('error', () => resolve('error'));
      response.on('end', () => resolve('end'));
      response.on('close', () => resolve('close'));
    });

    await closeWithinBound();
    await socketClosed;
    expect(socket.destroyed).toBe(true);
    // The stream never completed: the client sees it cut short, not a normal end.
    expect(await ended).not.toBe('end');
    expect(response.complete).toBe(false);
  }, 30_000);
});
