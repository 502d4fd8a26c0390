import { pathSegment, ProviderHttp, ProviderHttpOptions } from './http';
import {
  CreatedOrder,
  createdOrderSchema,
  CreateOrderInput,
  insufficientFundsPaymentStatuses,
  Order,
  orderSchema,
} from './order-schemas';
import { ProviderError } from './provider-error';
import { RefreshedSession, refreshedSessionSchema } from './session-schemas';
import {
  BalancesQuery,
  CreateWalletInput,
  FundedBalances,
  fundedBalancesSchema,
  FundWalletInput,
  TokenBalance,
  tokenBalancesSchema,
  Wallet,
  walletSchema,
} from './wallet-schemas';

export type ProviderClientOptions = ProviderHttpOptions;

export interface IdempotencyOptions {
  /**
   * Makes the POST safe to retry. The provider documents `x-idempotency-key` for wallet
   * transactions; pass one here only where a duplicate would be harmless if it were ignored.
   */
  idempotencyKey?: string;
}

const ordersPath = '/api/2022-06-09/orders';
const walletsPath = '/api/2025-06-09/wallets';
const faucetPath = '/api/v1-alpha2/wallets';
const refreshPath = '/api/2024-09-26/session/sdk/auth/refresh';

/** The provider's orders, wallets and session APIs over plain `fetch` (the official SDK rejects non-production keys). */
export class ProviderClient {
  private readonly http: ProviderHttp;

  constructor(options: ProviderClientOptions) {
    this.http = new ProviderHttp(options);
  }

  /** Creates the owner's EVM smart wallet, or returns the one the owner already has. */
  async createWallet(input: CreateWalletInput): Promise<Wallet> {
    const { data } = await this.http.send({
      operation: 'wallets.create',
      method: 'POST',
      path: walletsPath,
      body: {
        chainType: 'evm',
        type: 'smart',
        config: { adminSigner: input.adminSigner },
        owner: input.owner,
      },
      idempotent: true,
      schema: walletSchema,
    });
    return data;
  }

  async getWallet(locator: string): Promise<Wallet> {
    const { data } = await this.http.send({
      operation: 'wallets.get',
      method: 'GET',
      path: `${walletsPath}/${pathSegment(locator)}`,
      schema: walletSchema,
    });
    return data;
  }

  async getBalances(locator: string, query: BalancesQuery): Promise<TokenBalance[]> {
    const { data } = await this.http.send({
      operation: 'wallets.balances',
      method: 'GET',
      path: `${walletsPath}/${pathSegment(locator)}/balances`,
      query: { tokens: query.tokens.join(','), chains: query.chains.join(',') },
      schema: tokenBalancesSchema,
    });
    return data;
  }

  /** Staging faucet: mints test stablecoin into the wallet. Not available in production. */
  async fundWallet(
    locator: string,
    input: FundWalletInput,
    options: IdempotencyOptions = {},
  ): Promise<FundedBalances> {
    const { data } = await this.http.send({
      operation: 'wallets.fund',
      method: 'POST',
      path: `${faucetPath}/${pathSegment(locator)}/balances`,
      body: input,
      idempotencyKey: options.idempotencyKey,
      schema: fundedBalancesSchema,
    });
    return data;
  }

  /**
   * The provider creates an order even when the payer cannot cover it and says so only in
   * `payment.status`; that case is raised as `insufficient_funds` so callers cannot miss it.
   */
  async createOrder(input: CreateOrderInput, options: IdempotencyOptions = {}): Promise<CreatedOrder> {
    const { status, data } = await this.http.send({
      operation: 'orders.create',
      method: 'POST',
      path: ordersPath,
      body: input,
      idempotencyKey: options.idempotencyKey,
      schema: createdOrderSchema,
    });
    const payment = data.order.payment;
    if (insufficientFundsPaymentStatuses.includes(payment.status)) {
      const total = data.order.quote?.totalPrice;
      const price = total ? ` ${total.amount} ${total.currency}` : '';
      throw new ProviderError({
        kind: 'insufficient_funds',
        operation: 'orders.create',
        status,
        providerCode: payment.status,
        providerMessage: `payer ${input.payment.payerAddress} cannot cover order ${data.order.orderId}${price}`,
      });
    }
    return data;
  }

  async getOrder(orderId: string): Promise<Order> {
    const { data } = await this.http.send({
      operation: 'orders.get',
      method: 'GET',
      path: `${ordersPath}/${pathSegment(orderId)}`,
      schema: orderSchema,
    });
    return data;
  }

  /**
   * Exchanges a refresh token for a new session. Never retried: the provider rotates the token
   * on first use, so a repeat after a lost answer would be refused and end the user's session.
   */
  async refreshSession(refreshToken: string): Promise<RefreshedSession> {
    const { data } = await this.http.send({
      operation: 'auth.refresh',
      method: 'POST',
      path: refreshPath,
      body: { refresh: refreshToken },
      schema: refreshedSessionSchema,
    });
    return data;
  }
}
