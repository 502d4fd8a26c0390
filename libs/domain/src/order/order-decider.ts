import { CartItemSnapshot, OrderEvent, OrderStatus } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';
import { DomainError } from '../domain-error';

type Payment = { status: string; currency: string } | null;
type Quote = { totalPrice: { amount: string; currency: string } } | null;

export interface OrderState {
  exists: boolean;
  userId: string | null;
  type: 'checkout' | 'deposit' | null;
  cartItemId: string | null;
  providerOrderId: string | null;
  status: OrderStatus | null;
  phase: string | null;
  payment: Payment;
  quote: Quote;
  walletAddress: string | null;
  serializedTransaction: string | null;
  onChainDigest: string | null;
  /** Contract checkouts sent whose answer was lost: looked up before another is sent. */
  onChainSubmitted: string[];
  /** The chain refused the contract checkout (recorded once at least). */
  onChainRefused: boolean;
  /** Where a cancelled order stopped: cancelled at payment, its item goes back to the cart. */
  cancelledAt: 'payment' | 'delivery' | null;
}

export const initialOrderState = (): OrderState => ({
  exists: false,
  userId: null,
  type: null,
  cartItemId: null,
  providerOrderId: null,
  status: null,
  phase: null,
  payment: null,
  quote: null,
  walletAddress: null,
  serializedTransaction: null,
  onChainDigest: null,
  onChainSubmitted: [],
  onChainRefused: false,
  cancelledAt: null,
});

export interface CreateOrder {
  type: 'CreateOrder';
  userId: string;
  cartItemId: string;
  providerOrderId: string;
  phase: string;
  item: CartItemSnapshot;
  payment: Payment;
  quote: Quote;
  walletAddress: string;
  serializedTransaction: string;
}

/** What a provider webhook says happened, in the spec's terms. */
export type ProviderUpdateKind =
  'payment_succeeded' | 'delivery_initiated' | 'delivery_completed' | 'payment_failed' | 'delivery_failed';

export interface ApplyProviderUpdate {
  type: 'ApplyProviderUpdate';
  kind: ProviderUpdateKind;
  phase: string;
  payment: Payment;
  quote: Quote;
  deliveryId: string;
  reason: string | null;
}

export interface RecordOnChainCheckout {
  type: 'RecordOnChainCheckout';
  txDigest: string;
}

export interface RecordOnChainCheckoutFailure {
  type: 'RecordOnChainCheckoutFailure';
  reason: string;
}

export interface RecordOnChainCheckoutSubmitted {
  type: 'RecordOnChainCheckoutSubmitted';
  txDigest: string;
}

export type OrderCommand =
  | CreateOrder
  | ApplyProviderUpdate
  | RecordOnChainCheckout
  | RecordOnChainCheckoutFailure
  | RecordOnChainCheckoutSubmitted;

const rank: Record<OrderStatus, number> = {
  awaiting_approval: 0,
  payment_confirmed: 1,
  in_progress: 2,
  delivered: 3,
  cancelled: 4,
};

/** An order in one of these statuses is open: not delivered or cancelled yet (an account with one stays open). */
export const openOrderStatuses: readonly OrderStatus[] = [
  'awaiting_approval',
  'payment_confirmed',
  'in_progress',
];

const target: Record<ProviderUpdateKind, OrderStatus> = {
  payment_succeeded: 'payment_confirmed',
  delivery_initiated: 'in_progress',
  delivery_completed: 'delivered',
  payment_failed: 'cancelled',
  delivery_failed: 'cancelled',
};

const statusAfter: Record<
  'OrderPaymentConfirmed' | 'OrderDeliveryStarted' | 'OrderDelivered' | 'OrderCancelled',
  OrderStatus
> = {
  OrderPaymentConfirmed: 'payment_confirmed',
  OrderDeliveryStarted: 'in_progress',
  OrderDelivered: 'delivered',
  OrderCancelled: 'cancelled',
};

const eventOf: Record<OrderStatus, OrderEvent['type']> = {
  awaiting_approval: 'OrderCreated',
  payment_confirmed: 'OrderPaymentConfirmed',
  in_progress: 'OrderDeliveryStarted',
  delivered: 'OrderDelivered',
  cancelled: 'OrderCancelled',
};

/** True when the update moves the order forward; everything else is recorded and changes nothing. */
export function movesForward(current: OrderStatus, kind: ProviderUpdateKind): boolean {
  if (current === 'delivered' || current === 'cancelled') return false;
  const next = target[kind];
  return next === 'cancelled' || rank[next] > rank[current];
}

function mustExist(state: OrderState): void {
  if (!state.exists) throw new DomainError('not_found', 'OrderNotFoundError', 'No such order');
}

function createOrder(command: CreateOrder, state: OrderState): OrderEvent[] {
  if (state.exists) throw new DomainError('conflict', 'CONFLICT', 'This order already exists');
  const { type: _type, ...order } = command;
  return [{ type: 'OrderCreated', data: { ...order, type: 'checkout' } }];
}

/** The contract's checkout is recorded once per order: the first digest is the tx_hash. */
function recordOnChainCheckout(command: RecordOnChainCheckout, state: OrderState): OrderEvent[] {
  mustExist(state);
  return state.onChainDigest
    ? []
    : [{ type: 'OrderCheckedOutOnChain', data: { txDigest: command.txDigest } }];
}

function recordOnChainCheckoutSubmitted(
  command: RecordOnChainCheckoutSubmitted,
  state: OrderState,
): OrderEvent[] {
  mustExist(state);
  return state.onChainDigest || state.onChainSubmitted.includes(command.txDigest)
    ? []
    : [{ type: 'OrderOnChainCheckoutSubmitted', data: { txDigest: command.txDigest } }];
}

function recordOnChainCheckoutFailure(
  command: RecordOnChainCheckoutFailure,
  state: OrderState,
): OrderEvent[] {
  mustExist(state);
  return state.onChainDigest
    ? []
    : [{ type: 'OrderOnChainCheckoutFailed', data: { reason: command.reason.slice(0, 1000) } }];
}

function applyProviderUpdate(command: ApplyProviderUpdate, state: OrderState): OrderEvent[] {
  mustExist(state);
  if (!state.status || !movesForward(state.status, command.kind)) return [];
  const progress = {
    phase: command.phase,
    payment: command.payment,
    quote: command.quote,
    deliveryId: command.deliveryId,
  };
  const next = target[command.kind];
  if (next === 'cancelled') {
    return [
      {
        type: 'OrderCancelled',
        data: {
          ...progress,
          stage: command.kind === 'payment_failed' ? 'payment' : 'delivery',
          reason: (command.reason ?? command.kind).slice(0, 1000),
        },
      },
    ];
  }
  return [
    {
      type: eventOf[next] as 'OrderPaymentConfirmed' | 'OrderDeliveryStarted' | 'OrderDelivered',
      data: progress,
    },
  ];
}

/**
 * An order on `order.<orderId>`. Status only moves forward (awaiting_approval ->
 * payment_confirmed -> in_progress -> delivered); cancelled is terminal and reachable from any
 * state before delivered. A late or out-of-order provider event changes nothing.
 */
export const orderDecider: Decider<OrderCommand, OrderEvent, OrderState> = {
  initialState: initialOrderState,

  decide(command, state) {
    switch (command.type) {
      case 'CreateOrder':
        return createOrder(command, state);
      case 'RecordOnChainCheckout':
        return recordOnChainCheckout(command, state);
      case 'RecordOnChainCheckoutSubmitted':
        return recordOnChainCheckoutSubmitted(command, state);
      case 'RecordOnChainCheckoutFailure':
        return recordOnChainCheckoutFailure(command, state);
      case 'ApplyProviderUpdate':
        return applyProviderUpdate(command, state);
      default:
        return unhandledCommand(command);
    }
  },

  evolve(state, event) {
    if (event.type === 'OrderCreated') {
      const d = event.data;
      return {
        exists: true,
        userId: d.userId,
        type: d.type,
        cartItemId: d.cartItemId,
        providerOrderId: d.providerOrderId,
        status: 'awaiting_approval',
        phase: d.phase,
        payment: d.payment,
        quote: d.quote,
        walletAddress: d.walletAddress,
        serializedTransaction: d.serializedTransaction,
        onChainDigest: null,
        onChainSubmitted: [],
        onChainRefused: false,
        cancelledAt: null,
      };
    }
    if (event.type === 'OrderCheckedOutOnChain') return { ...state, onChainDigest: event.data.txDigest };
    if (event.type === 'OrderOnChainCheckoutFailed') return { ...state, onChainRefused: true };
    if (event.type === 'OrderOnChainCheckoutSubmitted')
      return { ...state, onChainSubmitted: [...state.onChainSubmitted, event.data.txDigest] };
    const status = statusAfter[event.type];
    return {
      ...state,
      status,
      cancelledAt: event.type === 'OrderCancelled' ? event.data.stage : state.cancelledAt,
      phase: event.data.phase,
      payment: event.data.payment ?? state.payment,
      quote: event.data.quote ?? state.quote,
    };
  },
};
