import { describe, expect, it } from 'vitest';
import type { AppendListener, EventStore } from '@shop/eventstore';
import type { RecordedEvent } from '@shop/contracts';
import { countAppendedEvents } from '../src/instrumentation';
import { parsePrometheusText, sampleValue } from '../src/prometheus-text';
import { ServiceMetrics } from '../src/service-metrics';

/** A store that only reports appends, as EventStore.append does after each acknowledged commit. */
function reportingStore() {
  const listeners = new Set<AppendListener>();
  const store = {
    onAppended: (listener: AppendListener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  } as unknown as EventStore;
  const append = (events: Partial<RecordedEvent>[], ackSeconds: number) => {
    for (const listener of listeners) listener(events as RecordedEvent[], { ackSeconds });
  };
  return { store, append };
}

describe('countAppendedEvents', () => {
  it('counts every event by type, and times each commit’s acknowledgement once, by aggregate', async () => {
    const metrics = new ServiceMetrics('test');
    const { store, append } = reportingStore();
    const stop = countAppendedEvents(metrics, store);
    append(
      [
        { type: 'ItemAdded', aggregate: 'cart' },
        { type: 'ItemLinkedOnChain', aggregate: 'cart' },
      ],
      0.003,
    );
    append([{ type: 'DisplayNameSet', aggregate: 'user' }], 0.2);
    stop();
    append([{ type: 'ItemRemoved', aggregate: 'cart' }], 0.003);

    const samples = parsePrometheusText(await metrics.render());
    expect(sampleValue(samples, 'events_appended_total')).toBe(3);
    expect(sampleValue(samples, 'event_append_seconds_count', { aggregate: 'cart' })).toBe(1);
    expect(sampleValue(samples, 'event_append_seconds_bucket', { aggregate: 'cart', le: '0.005' })).toBe(1);
    expect(sampleValue(samples, 'event_append_seconds_count', { aggregate: 'user' })).toBe(1);
    expect(sampleValue(samples, 'event_append_seconds_bucket', { aggregate: 'user', le: '0.1' })).toBe(0);
  });
});
