import { Module } from '@nestjs/common';
import { RunSessionCommandHandler } from './run-session-command';
import { GetSessionHandler, ListSessionsHandler } from './session-queries';
import { SessionsController } from './sessions.controller';

@Module({
  controllers: [SessionsController],
  providers: [RunSessionCommandHandler, ListSessionsHandler, GetSessionHandler],
  exports: [RunSessionCommandHandler],
})
export class SessionsModule {}
