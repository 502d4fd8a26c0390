import { createServer, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/**
 * How the proxy mistreats one request: `refuse` answers 503 without passing it on, `drop` cuts
 * the connection before passing it on, `hang` never passes it on nor answers; after the target
 * handled it, `lose` cuts the connection instead of answering and `late` answers only after
 * `lateMs`, past most callers' deadlines.
 */
export type ProxyFault = 'refuse' | 'drop' | 'hang' | 'lose' | 'late';

export interface FaultProxy {
  url: string;
  /** The next requests suffer these faults, one each, in order. */
  faultNext(...faults: ProxyFault[]): void;
  /** Forgets the faults not yet used. */
  clearFaults(): void;
  /** Sends requests to another target (a restarted service on a new port). */
  retarget(target: string): void;
  /** Requests that reached the proxy, by fault (`none` for the ones passed through untouched). */
  counts(): Record<ProxyFault | 'none', number>;
  close(): Promise<void>;
}

/** An HTTP proxy in front of a service, for faults on the hop between two services. */
export async function startFaultProxy(target: string, lateMs = 8_000): Promise<FaultProxy> {
  let upstream = new URL(target);
  const scripted: ProxyFault[] = [];
  const counts: Record<ProxyFault | 'none', number> = {
    refuse: 0,
    drop: 0,
    hang: 0,
    lose: 0,
    late: 0,
    none: 0,
  };
  const server: Server = createServer((req, res) => {
    const fault = scripted.shift();
    counts[fault ?? 'none'] += 1;
    if (fault === 'refuse') {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'proxy refused', code: 'SERVICE_UNAVAILABLE' }));
      return;
    }
    if (fault === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault === 'hang') return;
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          if (fault === 'lose') {
            req.socket.destroy();
            return;
          }
          const send = () => {
            if (res.destroyed) return;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(chunks));
          };
          if (fault === 'late') setTimeout(send, lateMs).unref();
          else send();
        });
      },
    );
    forwarded.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    faultNext: (...faults) => scripted.push(...faults),
    clearFaults: () => {
      scripted.length = 0;
    },
    retarget: (next) => {
      upstream = new URL(next);
    },
    counts: () => ({ ...counts }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
