import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { UserCommand, userDecider, UserState } from '@shop/domain';
import { CommandExecutor } from '@shop/projections';

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
  constructor(private readonly executor: CommandExecutor) {}

  async execute({ userId, command }: RunUserCommand): Promise<UserState> {
    const outcome = await this.executor.execute(userDecider, 'user', userId, command, {
      actor: { kind: 'user', id: userId },
    });
    return outcome.state;
  }
}
