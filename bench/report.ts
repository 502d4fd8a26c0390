export interface Row {
  measure: string;
  value: string;
  target: string;
  met: boolean | null;
}

/** The closing table: what was measured, against the issue's target where it names one. */
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
const perCpuSecond = (count: number, cpu: number) => (cpu > 0 ? Math.round(count / cpu) : 0);
const cpuMsPer = (cpu: number, count: number) => (count > 0 ? Math.round((cpu / count) * 100_000) / 100 : 0);

/**
 * CPU ms per unit of work of each process, and their sum: `gateway 0.2 + nats 0.05 = 0.25`.
 * The servers' share counts every client they had (see serverCpuSeconds).
 */
function cpuPerUnit(count: number, cpuSeconds: Record<string, number>): { text: string; sum: number } {
  const each = Object.entries(cpuSeconds).map(
    ([name, cpu]) => [name, count > 0 ? (cpu * 1000) / count : 0] as const,
  );
  const sum = each.reduce((total, [, ms]) => total + ms, 0);
  return {
    text: `${each.map(([name, ms]) => `${name} ${ms.toFixed(3)}`).join(' + ')} = ${sum.toFixed(3)}`,
    sum,
  };
}

/**
 * Rows for the phases that ran: every figure of the issue with its target. `baseline` is the
 * results of an earlier run (`--baseline <file>`), the "today" the read efficiency is held to.
 */
export function resultRows(r: Record<string, any>, baseline?: Record<string, any>): Row[] {
  const rows: Row[] = [];
  const {
    startup,
    idle,
    write,
    rawFloor,
    read,
    readFloor,
    writeToReadable: paced,
    memory,
    rebuild,
    growth,
    encryption,
    tracing,
    projectorThroughput: throughput,
    saturation,
    lightLoadFloor: floor,
  } = r;
  if (startup) {
    rows.push(row('services run', startup.runs));
    rows.push(
      row(
        'start-up to ready s, gateway / projector',
        `${startup.gatewaySeconds} / ${startup.projectorSeconds}`,
      ),
    );
  }
  if (idle) {
    const each = Object.entries(idle.processes as Record<string, number>)
      .map(([name, percent]) => `${name} ${percent}`)
      .join(' + ');
    rows.push(
      row(
        'idle CPU % of a core, every process of the stack',
        `${each} = ${idle.totalPercentOfCore}`,
        '< 3',
        idle.totalPercentOfCore < 3,
      ),
    );
  }
  if (write) {
    rows.push(row('write: cart commands/s (POST+DELETE, RYW)', `${write.perSecond}`));
    rows.push(row('write: p50 / p99 ms', `${write.p50Ms} / ${write.p99Ms}`));
    rows.push(
      row(
        'write: write-to-readable p50 / p99 ms',
        `${write.writeToReadableP50Ms} / ${write.writeToReadableP99Ms}`,
      ),
    );
    rows.push(
      row(
        'write: errors / read-your-writes timeouts',
        `${write.errors} / ${write.readYourWritesTimeouts}`,
        '0 / 0',
        write.errors === 0 && write.readYourWritesTimeouts === 0,
      ),
    );
    if (write.serverCpuSeconds) {
      const cost = cpuPerUnit(write.count, {
        gateway: write.gatewayCpuSeconds,
        projector: write.projectorCpuSeconds,
        ...write.serverCpuSeconds,
      });
      rows.push(
        row('write: CPU ms per cart command, by process', cost.text, '<= 0.40 summed', cost.sum <= 0.4),
      );
    }
  }
  for (const [phase, result] of [
    ['write', write],
    ['read cart', read?.cart],
    ['read orders', read?.orders],
    [`paced @ ${paced?.commandsPerSecond}/s`, paced],
  ] as const) {
    const ryw = result?.readYourWrites;
    if (!ryw) continue;
    const rate = ryw.requestsWithToken > 0 ? ryw.consistentReadTimeouts / ryw.requestsWithToken : 0;
    rows.push(
      row(
        `${phase}: RYW command waits timed out / requests sent with a token / their waits timed out`,
        `${ryw.commandWaitTimeouts} / ${ryw.requestsWithToken} / ${ryw.consistentReadTimeouts} (${(rate * 100).toFixed(1)}%)`,
      ),
    );
  }
  if (rawFloor) {
    rows.push(row('raw floor: publish+ack & upsert ops/s', `${rawFloor.perSecond}`));
    rows.push(row('raw floor: p50 / p99 ms', `${rawFloor.p50Ms} / ${rawFloor.p99Ms}`));
    if (rawFloor.serverCpuSeconds) {
      const cost = cpuPerUnit(rawFloor.count, {
        client: rawFloor.clientCpuSeconds,
        ...rawFloor.serverCpuSeconds,
      });
      rows.push(row('raw floor: CPU ms per publish+ack & upsert, by process', cost.text));
    }
  }
  if (write && rawFloor) {
    const ratio = write.perSecond / rawFloor.perSecond;
    rows.push(row('ours / raw floor', ratio.toFixed(2), '>= 0.7', ratio >= 0.7));
  }
  if (paced) {
    rows.push(
      row(
        `command latency p50 / p99 ms @ ${paced.commandsPerSecond}/s`,
        `${paced.commands.p50Ms} / ${paced.commands.p99Ms}`,
        'p99 <= 15',
        paced.commands.p99Ms <= 15,
      ),
    );
    rows.push(
      row(
        `write-to-readable p50 / p99 ms @ ${paced.commandsPerSecond}/s`,
        `${paced.p50Ms} / ${paced.p99Ms}`,
        'p99 < 15',
        paced.p99Ms < 15,
      ),
    );
  }
  if (floor) {
    rows.push(
      row(
        `light-load floor: a bare Node HTTP server's CPU µs/request @ ${floor.perSecond}/s vs saturated`,
        `${floor.pacedUsPerRequest} vs ${floor.saturatedUsPerRequest} = ${floor.ratio}x`,
      ),
    );
    rows.push(
      row(
        `light-load floor: that server's latency p50 / p99 ms @ ${floor.perSecond}/s`,
        `${floor.paced.p50Ms} / ${floor.paced.p99Ms}`,
      ),
    );
  }
  if (paced && write) {
    for (const service of ['gateway', 'projector'] as const) {
      const saturated = cpuMsPer(write[`${service}CpuSeconds`], write.count);
      const light = cpuMsPer(paced[`${service}CpuSeconds`], paced.commands.count);
      const ratio = saturated > 0 ? light / saturated : 0;
      rows.push(
        row(
          `${service} CPU ms/command @ ${paced.commandsPerSecond}/s vs saturated`,
          `${light} vs ${saturated} = ${ratio.toFixed(2)}x`,
          '<= 1.5x',
          ratio <= 1.5,
        ),
      );
    }
  }
  for (const [phase, result] of [
    ['write (saturated)', write],
    [`paced @ ${paced?.commandsPerSecond}/s`, paced],
  ] as const) {
    const per = result?.perCommand;
    if (!per) continue;
    rows.push(
      row(
        `${phase}: syscalls / event-loop waits per command, gateway | projector`,
        `${per.gatewaySyscalls} / ${per.gatewayWaits} | ${per.projectorSyscalls} / ${per.projectorWaits}`,
      ),
    );
  }
  if (read) {
    for (const name of ['cart', 'orders'] as const) {
      const result = read[name];
      const efficiency = perCpuSecond(result.count, result.gatewayCpuSeconds);
      const before = baseline?.results?.read?.[name];
      const floor = before ? 1.5 * perCpuSecond(before.count, before.gatewayCpuSeconds) : null;
      rows.push(row(`read GET /api/${name} req/s`, `${result.perSecond}`));
      if (result.serverCpuSeconds) {
        const cost = cpuPerUnit(result.count, {
          gateway: result.gatewayCpuSeconds,
          ...result.serverCpuSeconds,
        });
        rows.push(
          name === 'cart'
            ? row(
                `read GET /api/cart: CPU ms per request, by process`,
                cost.text,
                '<= 0.08 summed',
                cost.sum <= 0.08,
              )
            : row(`read GET /api/${name}: CPU ms per request, by process`, cost.text),
        );
      }
      rows.push(
        row(
          `read GET /api/${name} req per gateway CPU-s`,
          `${efficiency}`,
          floor === null ? '>= 1.5x baseline (--baseline)' : `>= ${Math.round(floor)}`,
          floor === null ? null : efficiency >= floor,
        ),
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
  if (readFloor) {
    const ms = (us: number) => (us / 1000).toFixed(3);
    for (const [label, figure] of [
      ['Nest on Fastify answering the cart from memory', readFloor.framework],
      ['the same, counting the request in Redis first', readFloor.rateLimited],
      ['the same, the cart read from Redis too (a gated cached read)', readFloor.gatedRead],
    ] as const) {
      rows.push(
        row(
          `read floor: ${label}, CPU ms per request`,
          `server ${ms(figure.serverUsPerRequest)} + redis ${ms(figure.redisUsPerRequest)} = ${ms(
            figure.serverUsPerRequest + figure.redisUsPerRequest,
          )}`,
        ),
      );
    }
  }
  if (rebuild) {
    const rm = rebuild.readModel;
    rows.push(
      row(
        `rebuild events/s (${rm.events} events)`,
        `${rm.rebuildEventsPerSecond}`,
        '>= 50000',
        rm.rebuildEventsPerSecond >= 50000,
      ),
    );
    rows.push(
      row(
        `rebuild / COPY of its ${rm.rows} rows`,
        `${rm.rebuildSeconds} s / ${rm.copySeconds} s = ${rm.rebuildToCopy}x`,
        '<= 4x',
        rm.rebuildToCopy <= 4,
      ),
    );
    rows.push(row('append, pipelined, events/s', `${rm.appendEventsPerSecond}`));
    rows.push(row('analytics rebuild events/s', `${rebuild.analytics.eventsPerSecond}`));
  }
  if (growth) rows.push(...growthRows(growth));
  if (throughput) {
    const [one, two] = throughput.runs;
    rows.push(
      row(
        `projector throughput, ${throughput.partitions} partitions: events/s with 1 / 2 processes`,
        `${one.eventsPerSecond} / ${two.eventsPerSecond} (${throughput.speedup}x; CPU s ${one.cpuSeconds.join('+')} / ${two.cpuSeconds.join('+')}; RSS MiB ${(one.rssMiB ?? []).join('+')} / ${(two.rssMiB ?? []).join('+')})`,
      ),
    );
    rows.push(
      row(
        `projector catching up, ${throughput.partitions} partitions, 1 process: CPU ms per event`,
        `${cpuMsPer(one.cpuSeconds[0], throughput.events)}`,
      ),
    );
    const deliveries = Object.values(one.deliveriesPerEvent ?? {}) as number[];
    if (deliveries.length > 0)
      rows.push(
        row(
          `deliveries per event to a partitioned projection's ${throughput.partitions} partitions (1 process)`,
          Object.entries(one.deliveriesPerEvent)
            .map(([name, n]) => `${name} ${n}`)
            .join(', '),
          '1 (not N)',
          deliveries.every((n) => n <= 1.01),
        ),
      );
    rows.push(
      row(
        'stream: bytes per event, subjects, consumers',
        `${throughput.stream.bytesPerEvent}, ${throughput.stream.subjects}, ${throughput.stream.consumers}`,
      ),
    );
    rows.push(
      row(
        'read model: bytes per row',
        throughput.readModel
          .filter((t: { rows: number }) => t.rows > 0)
          .map((t: { table: string; bytesPerRow: number }) => `${t.table} ${t.bytesPerRow}`)
          .join(', '),
      ),
    );
  }
  if (saturation) {
    const { saturation: s, catchUp: c } = saturation;
    rows.push(
      row(
        `sustained saturation, ${s.seconds} s: cart commands/s, p99 ms`,
        `${s.commandsPerSecond}, ${s.p99Ms}`,
      ),
    );
    rows.push(
      row(
        'sustained saturation: cart projection lag p99 (events), first / last slice',
        `${s.lagEvents[0]?.p99} / ${s.lagEvents.at(-1)?.p99} (${s.lastToFirstP99}x)`,
        '<= 2x',
        s.bounded,
      ),
    );
    rows.push(
      row(
        `catch-up after the projector stopped ${c.stoppedSeconds} s under that load: s (events behind, events/s)`,
        `${c.caughtUpSeconds ?? '> 80'} (${c.lagAtRestartEvents}, ${c.eventsPerSecond ?? '-'})`,
        '<= 20',
        c.caughtUpSeconds !== null && c.caughtUpSeconds <= 20,
      ),
    );
  }
  if (tracing) {
    const ms = tracing.cpuMsPerCommand;
    const percent = tracing.overheadPercent;
    const rounds = (variant: string) => tracing.overheadPercentPerRound[variant].join(', ');
    rows.push(
      row(
        'tracing: CPU ms per cart command, off / twin off / every span / a tenth sampled / with query spans',
        `${ms.untraced} / ${ms.twin} / ${ms.every} / ${ms.sampled} / ${ms.queries}`,
      ),
    );
    rows.push(
      row(
        'tracing: the untraced twin against the other, CPU % per command (noise floor)',
        `${tracing.noiseFloorPercent} (slices: ${rounds('twin')})`,
      ),
    );
    rows.push(
      row(
        'tracing cost, every span: CPU % per command over the untraced',
        `${percent.every} (slices: ${rounds('every')})`,
        '<= 5',
        percent.every <= 5,
      ),
    );
    rows.push(
      row(
        'tracing cost, a tenth sampled: CPU % per command over the untraced',
        `${percent.sampled} (slices: ${rounds('sampled')})`,
        '<= 5',
        percent.sampled <= 5,
      ),
    );
    rows.push(
      row(
        'tracing cost with query spans (pg, ioredis named): CPU % per command over the untraced',
        `${percent.queries} (slices: ${rounds('queries')})`,
      ),
    );
  }
  if (encryption) {
    const cpu = encryption.cpuOverheadPercent ?? {};
    for (const [label, wall, cpuPercent] of [
      ['sealing cost on appends that create keys, wall / CPU %', encryption.writeOverheadPercent, cpu.write],
      [
        'sealing cost on appends under known keys, wall / CPU %',
        encryption.writeOverheadKnownKeysPercent,
        cpu.writeKnownKeys,
      ],
      ['sealing cost on rebuild, wall / CPU %', encryption.rebuildOverheadPercent, cpu.rebuild],
    ] as const) {
      if (wall !== undefined) rows.push(row(label, `${wall} / ${cpuPercent ?? '-'}`, '< 10', wall < 10));
    }
    if (write && cpu.writeKnownKeys !== undefined && cpu.rebuild !== undefined && encryption.sealedEvents) {
      // The appends and rebuild above cost tens of µs per event, a command through the stack many
      // times that. A command's event holding personal data is sealed once in the gateway and
      // opened once in the projector: the extra CPU of both per such event (opening with a cold
      // key cache, an upper bound), set against one command of the write phase.
      const perEventUs = (side: number, percent: number) => (side / encryption.sealedEvents) * percent * 1e4;
      const extraUs =
        perEventUs(encryption.clear.appendCpuSeconds, cpu.writeKnownKeys) +
        perEventUs(encryption.clear.rebuildCpuSeconds!, cpu.rebuild);
      const commandUs = ((write.gatewayCpuSeconds + write.projectorCpuSeconds) / write.count) * 1e6;
      rows.push(
        row(
          "sealing + opening's extra CPU per event holding personal data, under known keys, against one cart command's gateway + projector CPU (write phase)",
          `${extraUs.toFixed(1)} µs vs ${commandUs.toFixed(0)} µs = ${((extraUs / commandUs) * 100).toFixed(1)}%`,
        ),
      );
    }
  }
  if (memory) {
    for (const [when, at] of [
      ['after start', memory.afterStart],
      ['after write', memory.afterWrite],
    ] as const) {
      if (at)
        rows.push(row(`RSS ${when} MiB, gateway / projector`, `${at.gatewayRssMiB} / ${at.projectorRssMiB}`));
    }
    if (memory.atEnd) {
      rows.push(
        row(
          'RSS at the end MiB, gateway / projector',
          `${memory.atEnd.gatewayRssMiB} / ${memory.atEnd.projectorRssMiB}`,
          'gateway < 250',
          memory.atEnd.gatewayRssMiB < 250,
        ),
      );
    }
  }
  return rows;
}

/**
 * The growth curves: each point against the first, flagged when it grows faster than its work
 * (events appended, history length, or the rebuilt stream's events) or, for a flat one, at all.
 * Then cold against warm aggregate cost at each point.
 */
function growthRows(growth: Record<string, any>): Row[] {
  const rows: Row[] = [
    row('growth: live stream before the phase (not in the scale)', `${growth.earlierEvents} events`),
  ];
  for (const curve of growth.curves as any[]) {
    const first = curve.points[0];
    for (const point of curve.points) {
      const work = Math.round((point.work / first.work) * 10) / 10;
      const cost = first.value > 0 ? point.value / first.value : 0;
      rows.push(
        row(
          `growth: ${curve.name} @ ${point.scale}x (${point.work})`,
          `${point.value} ${curve.unit} (${cost.toFixed(2)}x for ${work}x work)`,
          curve.expect === 'flat' ? '<= 1.5x (flat)' : `<= ${(1.25 * work).toFixed(1)}x (linear)`,
          curve.expect === 'flat' ? cost <= 1.5 : cost <= 1.25 * work,
        ),
      );
    }
  }
  for (const point of growth.points as any[]) {
    const { cartCommits, cold, warm, coldToWarmCpu } = point.aggregates;
    rows.push(
      row(
        `growth: cold vs warm cart, ${cartCommits} commits: p50 ms / gateway CPU ms`,
        `${cold.p50Ms} / ${cold.gatewayCpuMs} vs ${warm.p50Ms} / ${warm.gatewayCpuMs} (CPU ${coldToWarmCpu}x)`,
      ),
    );
    const { pauses, gatewayHandlingP99Ms: handled, commands } = point.write;
    if (pauses && handled) {
      rows.push(
        row(
          `growth ${point.scale}x: command p99 ms, bench / gateway (add, remove) / its append ack; GC pauses >= 100 ms gateway / projector / bench; bench loop delay max ms`,
          `${commands.p99Ms} / ${handled.add}, ${handled.remove} / ${handled.appendAck}; ${pauses.gateway.over100Ms} / ${pauses.projector.over100Ms} / ${pauses.bench.over100Ms}; ${pauses.bench.eventLoopDelayMaxMs}`,
        ),
      );
    }
  }
  return rows;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
