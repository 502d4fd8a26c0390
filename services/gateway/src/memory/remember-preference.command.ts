import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { memoryDecider } from '@shop/domain';
import { CommandExecutor } from '@shop/projections';

export class RememberPreferenceCommand extends Command<{ stored: boolean }> {
  constructor(
    readonly userId: string,
    readonly fact: string,
    readonly namespace: string,
    readonly commandId?: string,
  ) {
    super();
  }
}

/** Appends to the user's own memory subject; `stored` is false when the fact was already known. */
@CommandHandler(RememberPreferenceCommand)
export class RememberPreferenceHandler implements ICommandHandler<RememberPreferenceCommand> {
  constructor(private readonly executor: CommandExecutor) {}

  async execute({ userId, fact, namespace, commandId }: RememberPreferenceCommand) {
    const outcome = await this.executor.execute(
      memoryDecider,
      'memory',
      userId,
      { type: 'RememberPreference', fact, namespace, source: 'chat' },
      { actor: { kind: 'user', id: userId }, commandId },
    );
    return { stored: outcome.appended };
  }
}
