import { readFileSync } from 'node:fs';

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
