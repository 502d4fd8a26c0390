import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { Aggregates } from '@shop/commands';
import type { GatewayConfig } from '@shop/config';
import type { EventStore } from '@shop/eventstore';
import { ReadModelPositions } from '@shop/projections';
import { erasureReadModels, type ReadModelDatabase } from '@shop/read-models';
import { DataKeyVault, eraseAccount } from '@shop/wallets';
import { currentCorrelationId } from '@shop/logging';
import { CONFIG, DATA_KEYS, EVENT_STORE, READ_DB } from '../infrastructure/tokens';

export class CloseAccountCommand extends Command<{ sessions: number }> {
  constructor(readonly userId: string) {
    super();
  }
}

/**
 * The user closes their own account: decided on read models caught up with the stream,
 * recorded, then their data keys are destroyed (the account-erasure reaction finishes the job
 * if this request does not).
 */
@CommandHandler(CloseAccountCommand)
export class CloseAccountHandler implements ICommandHandler<CloseAccountCommand> {
  constructor(
    private readonly aggregates: Aggregates,
    private readonly positions: ReadModelPositions,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_DB) private readonly readModel: Kysely<ReadModelDatabase>,
    @Inject(DATA_KEYS) private readonly dataKeys: DataKeyVault,
    @Inject(CONFIG) private readonly config: GatewayConfig,
  ) {}

  execute({ userId }: CloseAccountCommand): Promise<{ sessions: number }> {
    return eraseAccount(
      {
        stream: this.store,
        dataKeys: this.dataKeys,
        ...erasureReadModels(this.positions, this.readModel, this.config.CONSISTENT_READ_TIMEOUT_MS),
        closeAccount: (id, command) =>
          this.aggregates.user.execute(id, command, {
            actor: { kind: 'user', id },
            correlationId: currentCorrelationId(),
          }),
      },
      userId,
      'user',
    );
  }
}
