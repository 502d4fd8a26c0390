import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { SessionEvent } from '@shop/contracts';
import { SessionCommand, sessionDecider, SessionState } from '@shop/domain';
import { CommandOutcome } from '@shop/eventstore';
import { CommandExecutor } from '@shop/projections';

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
  constructor(private readonly executor: CommandExecutor) {}

  execute({
    sessionId,
    command,
    commandId,
  }: RunSessionCommand): Promise<CommandOutcome<SessionEvent, SessionState>> {
    return this.executor.execute(sessionDecider, 'session', sessionId, command, {
      actor: { kind: 'user', id: command.userId },
      commandId,
    });
  }
}
