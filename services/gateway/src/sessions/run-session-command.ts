import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { SessionEvent } from '@shop/contracts';
import { SessionCommand, SessionState } from '@shop/domain';
import { Aggregates, CommandOutcome } from '@shop/commands';
import { currentCorrelationId } from '@shop/logging';

export class RunSessionCommand extends Command<CommandOutcome<SessionEvent, SessionState>> {
  constructor(
    readonly sessionId: string,
    readonly command: SessionCommand,
    readonly commandId?: string,
  ) {
    super();
  }
}

/** Every chat-session command goes through the session decider, which owns the ownership rule. */
@CommandHandler(RunSessionCommand)
export class RunSessionCommandHandler implements ICommandHandler<RunSessionCommand> {
  constructor(private readonly aggregates: Aggregates) {}

  execute({
    sessionId,
    command,
    commandId,
  }: RunSessionCommand): Promise<CommandOutcome<SessionEvent, SessionState>> {
    return this.aggregates.session.execute(sessionId, command, {
      actor: { kind: 'user', id: command.userId },
      correlationId: currentCorrelationId(),
      commandId,
    });
  }
}
