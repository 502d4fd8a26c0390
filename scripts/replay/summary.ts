import { TableChecksum, TableComparison } from '@shop/projections';
import { count, duration, table } from './format';
import { PhaseStats } from './progress';

export function phaseSummary(phases: readonly PhaseStats[]): string {
  const total = phases.reduce(
    (sum, p) => ({
      phase: 'total',
      messages: sum.messages + p.messages,
      events: sum.events + p.events,
      durationMs: sum.durationMs + p.durationMs,
    }),
    { phase: 'total', messages: 0, events: 0, durationMs: 0 },
  );
  const rows = [...phases, total].map((p) => [
    p.phase,
    count(p.messages),
    count(p.events),
    duration(p.durationMs),
    p.durationMs > 0 ? count(Math.round((p.events * 1000) / p.durationMs)) : '-',
  ]);
  return table(['phase', 'commits', 'events', 'duration', 'events/s'], rows);
}

export function comparisonSummary(tables: readonly TableComparison[]): string {
  const rows = tables.map((t) => [
    t.table,
    count(t.live.rows),
    count(t.rebuilt.rows),
    t.live.md5.slice(0, 12),
    t.rebuilt.md5.slice(0, 12),
    t.equal ? 'equal' : 'DIFFERS',
  ]);
  return table(['table', 'live rows', 'rebuilt rows', 'live checksum', 'rebuilt checksum', 'result'], rows);
}

export function rowsSummary(checksums: Readonly<Record<string, TableChecksum>>): string {
  const rows = Object.entries(checksums).map(([name, c]) => [name, count(c.rows), c.md5.slice(0, 12)]);
  return table(['table', 'rows', 'checksum'], rows);
}
