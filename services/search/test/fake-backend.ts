import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** What the fake answered. */
  status: number;
}

/**
 * The backend's deposit-confirmation endpoint: records every call, answers 200 with the deposit
 * result of the confirmed digest unless told otherwise.
 */
export interface FakeBackend {
  url: string;
  received(): ReceivedRequest[];
  /** The next calls answer these statuses (with an error code when given), in order. */
  answerNext(...answers: (number | ScriptedAnswer)[]): void;
  /** Every answer waits this long. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export interface ScriptedAnswer {
  status: number;
  code: string;
  /** The body as sent, in place of the usual one for the status. */
  body?: string;
}

export async function startFakeBackend(): Promise<FakeBackend> {
  const received: ReceivedRequest[] = [];
  const scripted: ScriptedAnswer[] = [];
  let delayMs = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { status, code, body: scriptedBody } = scripted.shift() ?? { status: 200, code: '' };
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as { transactionHash?: string }) : undefined;
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
        status,
      });
      const answer =
        status < 300
          ? { success: true, txDigest: body?.transactionHash, usdcAmount: 1, usdmxAmount: '1' }
          : { error: `scripted ${status}`, code };
      setTimeout(() => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(scriptedBody ?? JSON.stringify(answer));
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => [...received],
    answerNext: (...answers) =>
      scripted.push(...answers.map((a) => (typeof a === 'number' ? { status: a, code: 'SCRIPTED' } : a))),
    setDelay: (ms) => {
      delayMs = ms;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
