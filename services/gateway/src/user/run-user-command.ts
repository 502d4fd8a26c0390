import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { UserCommand, UserState } from '@shop/domain';
import { Aggregates } from '@shop/commands';
import { currentCorrelationId } from '@shop/logging';

export class RunUserCommand extends Command<UserState> {
  constructor(
    readonly userId: string,
    readonly command: UserCommand,
  ) {
    super();
  }
}

/** Every user-aggregate command goes through the one decider; the handler only routes it. */
@CommandHandler(RunUserCommand)
export class RunUserCommandHandler implements ICommandHandler<RunUserCommand> {
  constructor(private readonly aggregates: Aggregates) {}

  async execute({ userId, command }: RunUserCommand): Promise<UserState> {
    const outcome = await this.aggregates.user.execute(userId, command, {
      actor: { kind: 'user', id: userId },
      correlationId: currentCorrelationId(),
    });
    return outcome.state;
  }
}
