import { AddressInfo, createServer, Server, Socket } from 'node:net';

export interface TcpFreezeProxy {
  /** Host and port clients connect to, in place of the target's. */
  host: string;
  port: number;
  /**
   * Stops forwarding in both directions without closing anything: both TCP connections stay
   * up (the proxy's kernel acknowledges every packet), as over a path that went silent.
   */
  freeze(): void;
  /** Forwards again, everything held while frozen first, in order. */
  thaw(): void;
  readonly frozen: boolean;
  close(): Promise<void>;
}

/** What one direction of one connection still has to pass on while the path is frozen. */
interface Hop {
  to: Socket;
  held: (Buffer | 'end' | 'close')[];
}

/**
 * A TCP proxy in front of a server (Postgres), for a path that freezes: the failure where
 * neither end learns anything until a timeout of its own.
 */
export async function startTcpFreezeProxy(targetHost: string, targetPort: number): Promise<TcpFreezeProxy> {
  let frozen = false;
  const hops = new Set<Hop>();
  const sockets = new Set<Socket>();
  const pass = (hop: Hop, chunk: Buffer | 'end' | 'close') => {
    if (hop.to.destroyed) return;
    if (chunk === 'end') hop.to.end();
    else if (chunk === 'close') {
      hop.to.destroy();
      hops.delete(hop);
    } else hop.to.write(chunk);
  };
  const flow = (from: Socket, to: Socket) => {
    const hop: Hop = { to, held: [] };
    hops.add(hop);
    const forward = (chunk: Buffer | 'end' | 'close') => {
      if (frozen || hop.held.length > 0) hop.held.push(chunk);
      else pass(hop, chunk);
    };
    from.on('data', (chunk: Buffer) => forward(chunk));
    from.on('end', () => forward('end'));
    from.on('close', () => forward('close'));
  };
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = new Socket({ allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A socket's end or reset is passed on (as a close) once the path forwards.
      socket.on('error', () => undefined);
    }
    flow(client, upstream);
    flow(upstream, client);
    upstream.connect(targetPort, targetHost);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const hop of hops) {
        for (const chunk of hop.held.splice(0)) pass(hop, chunk);
      }
    },
    get frozen() {
      return frozen;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
