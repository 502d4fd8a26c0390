import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { Kysely, Selectable } from 'kysely';
import { DomainError } from '@shop/domain';
import { SEARCH_DB } from '../infrastructure/tokens';
import { PaymentRecord } from './payment-schemas';
import { paymentTransaction } from './read-model/payment-transaction-queries';
import { PaymentTransactionsTable, SearchDatabase } from './read-model/search-database';

export class GetPaymentRecordQuery extends Query<PaymentRecord> {
  constructor(readonly key: { txHash: string } | { paymentId: string }) {
    super();
  }
}

function recordOf(row: Selectable<PaymentTransactionsTable>): PaymentRecord {
  return {
    paymentId: row.payment_id,
    txHash: row.tx_hash,
    status: row.status,
    amount: row.amount,
    receiver: row.receiver,
    network: row.network,
    currency: row.coin_type,
    failureCode: row.failure_code,
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Reads the transaction records projection, by digest or by payment id. */
@QueryHandler(GetPaymentRecordQuery)
export class GetPaymentRecordHandler implements IQueryHandler<GetPaymentRecordQuery> {
  constructor(@Inject(SEARCH_DB) private readonly db: Kysely<SearchDatabase>) {}

  async execute({ key }: GetPaymentRecordQuery): Promise<PaymentRecord> {
    const row = await paymentTransaction(this.db, key);
    if (!row) {
      const which = 'txHash' in key ? `transaction ${key.txHash}` : `payment ${key.paymentId}`;
      throw new DomainError('not_found', 'NOT_FOUND', `No record of ${which}`);
    }
    return recordOf(row);
  }
}
