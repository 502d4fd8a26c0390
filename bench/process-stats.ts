import { readdirSync, readFileSync } from 'node:fs';

const ticksPerSecond = 100;

/** Resident memory of a process from /proc, in MiB (the kernel's VmRSS). */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
}

/**
 * User + system CPU seconds a process has used, from /proc/<pid>/stat: CPU time, unlike wall
 * time, does not stretch when other work shares the cores.
 */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is parenthesised and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

export interface IoCounts {
  /** read-like and write-like system calls (the kernel's syscr and syscw). */
  syscalls: number;
  /** Times the process gave up the CPU to wait: roughly, event-loop wake-ups. */
  waits: number;
}

/**
 * System calls and voluntary context switches a process has made so far: per command, they
 * count round trips and wake-ups, which machine load does not change as it changes latencies.
 */
export function ioCountsOf(pid: number): IoCounts {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (text: string, name: string) =>
    Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    syscalls: field(io, 'syscr') + field(io, 'syscw'),
    waits: field(status, 'voluntary_ctxt_switches'),
  };
}

/** The servers a command passes through besides the services, by their process names. */
const servers = { nats: 'nats-server', postgres: 'postgres', redis: 'redis-server' } as const;
export type ServerName = keyof typeof servers;

/**
 * CPU seconds every process of each server has used so far, with the children they reaped
 * (Postgres forks a backend per connection; one that exits is counted in its postmaster's
 * children's time, so none is lost between two readings). Every client of a server counts:
 * attributed to the bench's work only on a machine where nothing else uses them.
 */
export function serverCpuSeconds(): Record<ServerName, number> {
  const total: Record<ServerName, number> = { nats: 0, postgres: 0, redis: 0 };
  const byCommand = new Map<string, ServerName>(
    Object.entries(servers).map(([name, command]) => [command, name as ServerName]),
  );
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile: its time is in its parent's reaped children's
    }
    const name = byCommand.get(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
    if (!name) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total[name] +=
      (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
  }
  return total;
}

/** What each server used between two readings. */
export function serverCpuBetween(
  before: Record<ServerName, number>,
  after: Record<ServerName, number>,
): Record<ServerName, number> {
  const round = (seconds: number) => Math.round(seconds * 100) / 100;
  return {
    nats: round(after.nats - before.nats),
    postgres: round(after.postgres - before.postgres),
    redis: round(after.redis - before.redis),
  };
}
