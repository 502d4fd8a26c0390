export interface Row {
  measure: string;
  value: string;
  target: string;
  met: boolean | null;
}

/** The closing table: what was measured, against the target where it names one. */
export function renderTable(rows: readonly Row[]): string {
  const headers = ['measure', 'value', 'target', 'met'];
  const cells = rows.map((r) => [r.measure, r.value, r.target, r.met === null ? '' : r.met ? 'yes' : 'NO']);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join(
    '\n',
  );
}

const row = (measure: string, value: string, target = '', met: boolean | null = null): Row => ({
  measure,
  value,
  target,
  met,
});

/* eslint-disable @typescript-eslint/no-explicit-any -- reads back the results object run.ts assembled */
/** Rows for the phases that ran. */
export function resultRows(r: Record<string, any>): Row[] {
  const rows: Row[] = [];
  const { write, rawFloor, read, writeToReadable: paced, memory, rebuild } = r;
  if (write) {
    rows.push(
      row(
        'write: cart commands/s (POST+DELETE, RYW)',
        `${write.perSecond}`,
        '>= 1000',
        write.perSecond >= 1000,
      ),
    );
    rows.push(row('write: p50 / p99 ms', `${write.p50Ms} / ${write.p99Ms}`, 'p99 < 50', write.p99Ms < 50));
    rows.push(
      row(
        'write: write-to-readable p50 / p99 ms',
        `${write.writeToReadableP50Ms} / ${write.writeToReadableP99Ms}`,
      ),
    );
  }
  if (rawFloor) {
    rows.push(row('raw floor: publish+ack & upsert ops/s', `${rawFloor.perSecond}`));
    rows.push(row('raw floor: p50 / p99 ms', `${rawFloor.p50Ms} / ${rawFloor.p99Ms}`));
  }
  if (write && rawFloor) {
    const ratio = write.perSecond / rawFloor.perSecond;
    rows.push(row('ours / raw floor', ratio.toFixed(2), '>= 0.5', ratio >= 0.5));
  }
  if (read) {
    for (const [name, result] of [
      ['cart', read.cart],
      ['orders', read.orders],
    ] as const) {
      rows.push(
        row(`read GET /api/${name} req/s`, `${result.perSecond}`, '>= 5000', result.perSecond >= 5000),
      );
      rows.push(
        row(
          `read GET /api/${name} p50 / p99 ms`,
          `${result.p50Ms} / ${result.p99Ms}`,
          'p99 < 20',
          result.p99Ms < 20,
        ),
      );
    }
  }
  if (paced) {
    rows.push(
      row(
        `write-to-readable p50 / p99 ms @ ${paced.commandsPerSecond}/s`,
        `${paced.p50Ms} / ${paced.p99Ms}`,
        'p99 < 20',
        paced.p99Ms < 20,
      ),
    );
    rows.push(
      row(
        `command latency p50 / p99 ms @ ${paced.commandsPerSecond}/s`,
        `${paced.commands.p50Ms} / ${paced.commands.p99Ms}`,
      ),
    );
  }
  if (rebuild) {
    const rm = rebuild.readModel;
    rows.push(
      row(
        `rebuild events/s (${rm.events} events)`,
        `${rm.rebuildEventsPerSecond}`,
        '>= 20000',
        rm.rebuildEventsPerSecond >= 20000,
      ),
    );
    rows.push(
      row(
        `rebuild / COPY of its ${rm.rows} rows`,
        `${rm.rebuildSeconds} s / ${rm.copySeconds} s = ${rm.rebuildToCopy}x`,
      ),
    );
    rows.push(row('append, pipelined, events/s', `${rm.appendEventsPerSecond}`));
    rows.push(row('analytics rebuild events/s', `${rebuild.analytics.eventsPerSecond}`));
  }
  if (memory)
    rows.push(row('RSS gateway / projector MiB', `${memory.gatewayRssMiB} / ${memory.projectorRssMiB}`));
  return rows;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
