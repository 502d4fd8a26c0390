import { UserChangeListener } from './cache-invalidator';
import { agentGrantsProjection } from './agent/agent-grants.projection';
import { cartItemsProjection } from './cart/cart-items.projection';
import { userMemoriesProjection } from './memory/user-memories.projection';
import { ordersProjection } from './order/orders.projection';
import { ReadModelProjection } from './read-model-database';
import { chatSessionsProjection } from './session/chat-sessions.projection';
import { usersProjection } from './user/users.projection';

export interface ProjectionDependencies {
  cart?: UserChangeListener;
  orders?: UserChangeListener;
}

/** Every projection of the read model, in the order the projector starts them. */
export function readModelProjections(dependencies: ProjectionDependencies = {}): ReadModelProjection[] {
  return [
    usersProjection,
    userMemoriesProjection,
    cartItemsProjection(dependencies.cart),
    chatSessionsProjection,
    ordersProjection(dependencies.orders),
    agentGrantsProjection,
  ];
}
