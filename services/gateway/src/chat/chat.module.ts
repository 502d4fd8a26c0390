import { Module } from '@nestjs/common';
import { CartModule } from '../cart/cart.module';
import { MemoryModule } from '../memory/memory.module';
import { ChatAgent } from './chat-agent';
import { ChatController } from './chat.controller';
import { ChatTools } from './chat-tools';
import { LookupTools } from './lookup-tools';
import { SessionTitler } from './session-titler';

@Module({
  imports: [MemoryModule, CartModule],
  controllers: [ChatController],
  providers: [ChatAgent, ChatTools, LookupTools, SessionTitler],
})
export class ChatModule {}
