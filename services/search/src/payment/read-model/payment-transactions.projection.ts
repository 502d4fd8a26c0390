import { Selectable } from 'kysely';
import { PaymentEvent, RecordedEvent } from '@shop/contracts';
import { applyRowFold, Projection, RowFoldSpec } from '@shop/projections';
import { PaymentTransactionsTable, SearchDatabase } from './search-database';

type PaymentRow = Selectable<PaymentTransactionsTable>;

function foldPayment(row: PaymentRow | undefined, recorded: RecordedEvent): PaymentRow | undefined {
  const event = recorded as RecordedEvent<PaymentEvent>;
  const at = new Date(event.occurredAt);
  if (event.type === 'PaymentVerificationStarted') {
    // A released digest claimed again: a new payment on the same record, which keeps its createdAt.
    return {
      tx_hash: event.aggregateId,
      payment_id: event.data.paymentId,
      user_id: event.data.userId,
      status: 'PENDING',
      amount: '0',
      receiver: event.data.merchant,
      payer: null,
      network: event.data.network,
      coin_type: event.data.coinType,
      failure_code: null,
      failure_reason: null,
      created_at: row?.created_at ?? at,
      updated_at: at,
      version: event.sequence,
    };
  }
  if (!row) throw new Error(`${event.type} for payment ${event.aggregateId}, which was never started`);
  const next = { ...row, updated_at: at, version: event.sequence };
  switch (event.type) {
    case 'PaymentVerified':
      return { ...next, amount: event.data.amount, payer: event.data.payer, receiver: event.data.receiver };
    case 'PaymentVerificationFailed':
      return {
        ...next,
        status: 'FAILED',
        amount: event.data.amount,
        failure_code: event.data.code,
        failure_reason: event.data.reason,
      };
    case 'PaymentConfirmationForwarded':
      return { ...next, status: 'SUCCESS', failure_reason: null };
    case 'PaymentConfirmationForwardFailed':
      return { ...next, failure_reason: event.data.reason };
    case 'PaymentConfirmationRefused':
      return {
        ...next,
        status: 'FAILED',
        failure_code: 'DEPOSIT_REFUSED',
        failure_reason: event.data.reason,
      };
  }
}

const paymentRowFold: RowFoldSpec<PaymentRow> = {
  table: 'payment_transactions',
  key: 'tx_hash',
  keyOf: (event) => (event.aggregate === 'payment' ? event.aggregateId : null),
  fold: foldPayment,
};

/** The transaction records the payment routes read; rebuildable from the `payment` events alone. */
export const paymentTransactionsProjection: Projection<SearchDatabase> = {
  name: 'payment_transactions',
  aggregates: ['payment'],
  tables: ['payment_transactions'],
  apply: (db, events) => applyRowFold(db, paymentRowFold, events),
};
