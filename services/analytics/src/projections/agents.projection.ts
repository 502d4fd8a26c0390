import { AgentClientEvent, RecordedEvent } from '@shop/contracts';
import { Projection } from '@shop/projections';
import { AnalyticsDatabase } from '../schema/analytics-database';

type Activity = { cart_adds: number; orders: number };

/**
 * What outside agents (MCP clients) did on shoppers' behalf: the cart adds and orders whose
 * events name the agent in their actor, per registered agent. A registration always precedes
 * its agent's commands in the stream, so the row is there before its first count.
 */
export const agentsProjection: Projection<AnalyticsDatabase> = {
  name: 'analytics_agents',
  aggregates: ['agent-client', 'cart', 'order'],
  tables: ['agent_activity'],
  async apply(db, events) {
    const registered: { client_id: string; client_name: string; cart_adds: 0; orders: 0 }[] = [];
    const activity = new Map<string, Activity>();
    const count = (clientId: string, field: keyof Activity) => {
      const counts = activity.get(clientId) ?? { cart_adds: 0, orders: 0 };
      counts[field]++;
      activity.set(clientId, counts);
    };
    for (const event of events) {
      if (event.type === 'AgentClientRegistered') {
        const { clientName } = (event as RecordedEvent<AgentClientEvent>).data;
        registered.push({ client_id: event.aggregateId, client_name: clientName, cart_adds: 0, orders: 0 });
        continue;
      }
      const agent = event.actor.agentClientId;
      if (agent === undefined) continue;
      if (event.type === 'ItemAdded') count(agent, 'cart_adds');
      else if (event.type === 'OrderCreated') count(agent, 'orders');
    }
    if (registered.length > 0)
      await db
        .insertInto('agent_activity')
        .values(registered)
        .onConflict((oc) => oc.column('client_id').doNothing())
        .execute();
    for (const [clientId, counts] of activity)
      await db
        .updateTable('agent_activity')
        .set((eb) => ({
          cart_adds: eb('cart_adds', '+', counts.cart_adds),
          orders: eb('orders', '+', counts.orders),
        }))
        .where('client_id', '=', clientId)
        .execute();
  },
};
