import { Inject } from '@nestjs/common';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { Aggregates } from '@shop/commands';
import type { ReadModelDatabase } from '@shop/read-models';
import { DataKeyVault, eraseAccount } from '@shop/wallets';
import { currentCorrelationId } from '@shop/logging';
import { DATA_KEYS, READ_DB } from '../infrastructure/tokens';

export class CloseAccountCommand extends Command<{ sessions: number }> {
  constructor(readonly userId: string) {
    super();
  }
}

/** The user closes their own account: recorded, then their data keys are destroyed. */
@CommandHandler(CloseAccountCommand)
export class CloseAccountHandler implements ICommandHandler<CloseAccountCommand> {
  constructor(
    private readonly aggregates: Aggregates,
    @Inject(READ_DB) private readonly readModel: Kysely<ReadModelDatabase>,
    @Inject(DATA_KEYS) private readonly dataKeys: DataKeyVault,
  ) {}

  execute({ userId }: CloseAccountCommand): Promise<{ sessions: number }> {
    return eraseAccount(
      {
        readModel: this.readModel,
        dataKeys: this.dataKeys,
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
