import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Aggregates } from '@shop/commands';
import { currentCorrelationId } from '@shop/logging';

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
  constructor(private readonly aggregates: Aggregates) {}

  async execute({ userId, fact, namespace, commandId }: RememberPreferenceCommand) {
    const outcome = await this.aggregates.memory.execute(
      userId,
      { type: 'RememberPreference', fact, namespace, source: 'chat' },
      { actor: { kind: 'user', id: userId }, correlationId: currentCorrelationId(), commandId },
    );
    return { stored: outcome.appended };
  }
}
