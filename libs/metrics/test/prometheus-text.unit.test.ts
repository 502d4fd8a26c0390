import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../src/prometheus-text';
import { ServiceMetrics } from '../src/service-metrics';

describe('ServiceMetrics and the text format', () => {
  it('renders what was recorded, and the parser reads it back by labels', async () => {
    const metrics = new ServiceMetrics('test');
    metrics.eventsAppended.inc({ type: 'ItemAdded' }, 2);
    metrics.eventsAppended.inc({ type: 'ItemRemoved' });
    metrics.httpRequestDuration.observe({ method: 'GET', route: '/api/cart', status_code: '200' }, 0.004);
    metrics.gauge('answer', 'a computed gauge', ['name'], (gauge) => gauge.set({ name: 'x "quoted"' }, 42));

    const samples = parsePrometheusText(await metrics.render());
    expect(sampleValue(samples, 'events_appended_total')).toBe(3);
    expect(sampleValue(samples, 'events_appended_total', { type: 'ItemAdded' })).toBe(2);
    expect(
      sampleValue(samples, 'http_request_duration_seconds_bucket', { route: '/api/cart', le: '0.005' }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'http_request_duration_seconds_bucket', { route: '/api/cart', le: '0.0025' }),
    ).toBe(0);
    expect(sampleValue(samples, 'answer', { name: 'x "quoted"' })).toBe(42);
    expect(samples.find((s) => s.name === 'answer')?.labels.service).toBe('test');
  });

  it('leaves a gauge empty, not the scrape failed, when its source cannot be asked', async () => {
    const metrics = new ServiceMetrics('test');
    metrics.gauge('flaky', 'fails to collect', ['source'], () => {
      throw new Error('database down');
    });
    const text = await metrics.render();
    expect(text).toContain('# TYPE flaky gauge');
    expect(parsePrometheusText(text).some((s) => s.name === 'flaky')).toBe(false);
  });
});
