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
