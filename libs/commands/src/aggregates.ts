import {
  Aggregate,
  agentClientAggregate,
  agentGrantAggregate,
  cartAggregate,
  depositAggregate,
  memoryAggregate,
  orderAggregate,
  paymentAggregate,
  providerWebhookAggregate,
  sessionAggregate,
  userAggregate,
} from '@shop/domain';
import { AggregateCommands, CommandExecutor } from './command-executor';

type CommandsOf<A> = A extends Aggregate<infer C, infer E, infer S> ? AggregateCommands<C, E, S> : never;

/** The write side of every aggregate, one handle each: what controllers, handlers and reactions use. */
export class Aggregates {
  readonly cart: CommandsOf<typeof cartAggregate>;
  readonly order: CommandsOf<typeof orderAggregate>;
  readonly user: CommandsOf<typeof userAggregate>;
  readonly session: CommandsOf<typeof sessionAggregate>;
  readonly memory: CommandsOf<typeof memoryAggregate>;
  readonly deposit: CommandsOf<typeof depositAggregate>;
  readonly payment: CommandsOf<typeof paymentAggregate>;
  readonly providerWebhook: CommandsOf<typeof providerWebhookAggregate>;
  readonly agentClient: CommandsOf<typeof agentClientAggregate>;
  readonly agentGrant: CommandsOf<typeof agentGrantAggregate>;

  constructor(executor: CommandExecutor) {
    this.cart = executor.of(cartAggregate);
    this.order = executor.of(orderAggregate);
    this.user = executor.of(userAggregate);
    this.session = executor.of(sessionAggregate);
    this.memory = executor.of(memoryAggregate);
    this.deposit = executor.of(depositAggregate);
    this.payment = executor.of(paymentAggregate);
    this.providerWebhook = executor.of(providerWebhookAggregate);
    this.agentClient = executor.of(agentClientAggregate);
    this.agentGrant = executor.of(agentGrantAggregate);
  }
}
