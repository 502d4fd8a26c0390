import { FaultInjector, FaultOptions, ProviderOperation } from './faults';
import { IdentityProvider, IssuedSession } from './identity';
import { FailureStage, OrderBook, OrderWire, WebhookOrder } from './order-book';
import { CreatedOrder } from './order-routes';
import { ProviderApiError } from './provider-api-error';
import { fromBaseUnits, toBaseUnits } from './usdc';
import { defaultChain } from './chains';
import { WalletRegistry } from './wallet-registry';
import { WebhookMessage, WebhookSender } from './webhook-sender';

export interface RecordedRequest {
  operation: ProviderOperation;
  method: string;
  path: string;
  idempotencyKey?: string;
  at: string;
  /** Set once the connection of a request held unanswered (`hang`) has closed: the caller gave up. */
  closedUnanswered?: true;
}

/** What a test, or a developer through /sandbox routes, can do to the provider beyond its public API. */
export interface SandboxControl {
  /** Signs in `email` as the provider's login would, returning the JWT and refresh token the client SDK gets. */
  issueToken(email: string, options?: { ttlSeconds?: number }): Promise<IssuedSession>;
  /** Credits USDC to a wallet (address or `email:<email>:evm`); returns its new balance on that chain. */
  fund(locator: string, amount: string, chain?: string): string;
  /** The user's approval: pays the order and delivers it, sending the three webhooks. */
  approve(orderId: string, options?: { webhookOrder?: WebhookOrder }): OrderWire;
  fail(orderId: string, stage: FailureStage, reason?: string): OrderWire;
  /** Sends a delivered message again under the same svix-id. */
  redeliver(svixId: string): void;
  setWebhookTarget(url: string, secret: string): void;
  failNext(operation: ProviderOperation, options?: FaultOptions): void;
  clearFaults(): void;
  deliveries(): WebhookMessage[];
  requests(operation?: ProviderOperation): RecordedRequest[];
  /** Every order created, once each, with the idempotency key it was created under. */
  createdOrders(): CreatedOrder[];
  /** Resolves when every webhook has been delivered or has run out of attempts. */
  waitForDeliveries(): Promise<void>;
}

export interface SandboxParts {
  identity: IdentityProvider;
  wallets: WalletRegistry;
  orders: OrderBook;
  sender: WebhookSender;
  faults: FaultInjector;
  requests: RecordedRequest[];
  created: CreatedOrder[];
}

export function createSandboxControl(parts: SandboxParts): SandboxControl {
  const { identity, wallets, orders, sender, faults, requests, created } = parts;
  return {
    issueToken: (email, options = {}) => identity.issue(email, options.ttlSeconds),
    fund(locator, amount, chain = defaultChain) {
      const wallet = wallets.credit(locator, chain, toBaseUnits(amount));
      return fromBaseUnits(wallets.balanceOf(wallet.address, chain));
    },
    approve: (orderId, options = {}) => orders.approve(orderId, options.webhookOrder),
    fail: (orderId, stage, reason) => orders.fail(orderId, stage, reason),
    redeliver(svixId) {
      if (!sender.redeliver(svixId)) throw new ProviderApiError(404, `No webhook message ${svixId}`);
    },
    setWebhookTarget(url, secret) {
      try {
        sender.setTarget({ url, secret });
      } catch (error) {
        throw new ProviderApiError(400, `Unusable webhook secret: ${(error as Error).message}`);
      }
    },
    failNext: (operation, options) => faults.failNext(operation, options),
    clearFaults: () => faults.clear(),
    deliveries: () => sender.log(),
    requests: (operation) => requests.filter((request) => !operation || request.operation === operation),
    waitForDeliveries: () => sender.whenIdle(),
    createdOrders: () => [...created],
  };
}
