import { describe, expect, it } from 'vitest';
import { dropForeignDelivery, foreignDeliveriesDropped } from '@shop/eventstore';
import { parsePrometheusText, sampleValue } from '../src/prometheus-text';
import { ServiceMetrics } from '../src/service-metrics';

describe('jetstream_foreign_deliveries_dropped_total', () => {
  it("counts by receiver the deliveries this process's receivers dropped, as of the scrape", async () => {
    const metrics = new ServiceMetrics('test');
    const own = { stream: 'SHOP', consumer: 'projector_projection_users' };
    const message = {
      subject: 'shop.cart.0a.c1',
      reply: '$JS.ACK.SHOP.attacker.1.7.3.1700000000000000000.0',
    };
    const silent = { warn() {} };
    const before = foreignDeliveriesDropped().get('projection') ?? 0;
    for (let i = 0; i < 5; i++) dropForeignDelivery('projection', 'users', message, own, silent);
    dropForeignDelivery('read', undefined, message, own, silent);
    const samples = parsePrometheusText(await metrics.render());
    const name = 'jetstream_foreign_deliveries_dropped_total';
    expect(sampleValue(samples, name, { receiver: 'projection' })).toBe(before + 5);
    expect(sampleValue(samples, name, { receiver: 'read' })).toBe(foreignDeliveriesDropped().get('read'));
  });
});
