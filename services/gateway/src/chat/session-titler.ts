import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { generateText } from 'ai';
import { buildTitlePrompt, cleanTitle } from '@shop/assistant';
import type { Logger } from '@shop/logging';
import { CHAT_MODEL, LOGGER } from '../infrastructure/tokens';
import { RunSessionCommand } from '../sessions/run-session-command';

/** A hosted model that hangs must not hold the chat stream open for long. */
const TITLE_TIMEOUT_MS = 15_000;

/**
 * Names an untitled session with a second model call. Best effort: a failure is logged and the
 * session stays untitled, to be named by its next exchange; the chat itself never fails for it.
 */
@Injectable()
export class SessionTitler {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CHAT_MODEL) private readonly model: LanguageModelV3,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async name(userId: string, sessionId: string, firstUserText: string, signal: AbortSignal): Promise<void> {
    try {
      const { system, prompt } = buildTitlePrompt(firstUserText);
      const { text } = await generateText({
        model: this.model,
        system,
        prompt,
        // The chat model retries within its own budget.
        maxRetries: 0,
        abortSignal: AbortSignal.any([signal, AbortSignal.timeout(TITLE_TIMEOUT_MS)]),
      });
      await this.commands.execute(
        new RunSessionCommand(sessionId, {
          type: 'RenameSession',
          userId,
          title: cleanTitle(text),
          generated: true,
        }),
      );
    } catch (error) {
      if (!signal.aborted) this.logger.warn({ err: error, sessionId }, 'session title not generated');
    }
  }
}
