import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { userIdForProviderSubject } from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { currentCorrelationId } from '@shop/logging';

export class RegisterUserCommand extends Command<{ userId: string; created: boolean }> {
  constructor(
    readonly providerSubject: string,
    readonly email: string | null,
  ) {
    super();
  }
}

/**
 * The first valid session of a provider identity registers it; later ones change nothing,
 * except that signing in again retries a wallet provisioning that failed.
 */
@CommandHandler(RegisterUserCommand)
export class RegisterUserHandler implements ICommandHandler<RegisterUserCommand> {
  constructor(private readonly aggregates: Aggregates) {}

  async execute(command: RegisterUserCommand): Promise<{ userId: string; created: boolean }> {
    const userId = userIdForProviderSubject(command.providerSubject);
    const actor = { kind: 'user' as const, id: userId };
    const outcome = await this.aggregates.user.execute(
      userId,
      { type: 'RegisterUser', providerSubject: command.providerSubject, email: command.email },
      { actor, correlationId: currentCorrelationId() },
    );
    if (outcome.state.walletStatus === 'failed') {
      await this.aggregates.user.execute(
        userId,
        { type: 'StartWalletProvisioning' },
        { actor, correlationId: currentCorrelationId() },
      );
    }
    return { userId, created: outcome.appended };
  }
}
