import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { LatencySummary, summarize } from './latency';
import { closedLoop, fixedRate, LoadResult } from './load';
import { cpuSecondsOf } from './process-stats';

/**
 * A bare Node HTTP server: no framework, no store, no database; it parses a small JSON body and
 * answers one. Whatever its CPU per request does between saturation and a light load is the
 * machine's (waking an idle process, cold caches, the hypervisor), not ours.
 */
const server = `
const http = require('node:http');
http
  .createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { n } = JSON.parse(body);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, n }));
    });
  })
  .listen(0, '127.0.0.1', function () {
    process.stdout.write(this.address().port + '\\n');
  });
`;

export interface LightLoadFloor {
  /** The bare server's CPU µs per request, driven at saturation (closed loop). */
  saturatedUsPerRequest: number;
  /** The same at the paced rate (open loop). */
  pacedUsPerRequest: number;
  perSecond: number;
  /** Paced against saturated: the light-load tax of this machine for a process that wakes per request. */
  ratio: number;
  /**
   * The bare server's latency at the paced rate, as the bench's client saw it: what this
   * machine's scheduling alone adds to a request's p99, before any work of ours.
   */
  paced: LatencySummary;
}

async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', server], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, port: Number(line.toString().trim()) };
}

function post(agent: Agent, port: number, n: number): Promise<number[]> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve([performance.now() - started]));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ n }));
  });
}

/**
 * The light-load floor, measured in the same run as the paced phase it explains: the bare
 * server's CPU per request at `perSecond` against saturation. A service's own ratio (its CPU per
 * command at that rate against saturated) is ours only by what it exceeds this one by.
 */
export async function lightLoadFloor(options: {
  perSecond: number;
  seconds: number;
  concurrency: number;
}): Promise<LightLoadFloor> {
  const { child, port } = await startServer();
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  try {
    const measured = async (run: () => Promise<LoadResult>) => {
      const before = cpuSecondsOf(child.pid!);
      const result = await run();
      if (result.errors > 0) throw new Error(`light-load floor: ${result.errors} requests failed`);
      return { result, cpuUs: ((cpuSecondsOf(child.pid!) - before) / result.latencies.length) * 1e6 };
    };
    // Warmed up first, so neither figure carries the JIT's compiling.
    await closedLoop(options.concurrency, 2, (_, i) => post(agent, port, i));
    const saturated = await measured(() =>
      closedLoop(options.concurrency, options.seconds, (_, i) => post(agent, port, i)),
    );
    const paced = await measured(() =>
      fixedRate(options.perSecond, options.seconds, (n) => post(agent, port, n)),
    );
    return {
      saturatedUsPerRequest: Math.round(saturated.cpuUs * 10) / 10,
      pacedUsPerRequest: Math.round(paced.cpuUs * 10) / 10,
      perSecond: options.perSecond,
      ratio: Math.round((paced.cpuUs / saturated.cpuUs) * 100) / 100,
      paced: summarize(paced.result.latencies, paced.result.seconds),
    };
  } finally {
    agent.destroy();
    child.kill();
  }
}
