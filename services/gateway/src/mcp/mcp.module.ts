import { Module } from '@nestjs/common';
import { CartModule } from '../cart/cart.module';
import { AgentOAuthController } from './agent-oauth.controller';
import { AgentOAuthModel } from './agent-oauth-model';
import { AgentTokenStore } from './agent-token-store';
import { ConnectedAgentsController } from './connected-agents.controller';
import { McpBearer } from './mcp-bearer';
import { McpController } from './mcp.controller';
import { McpTools } from './mcp-tools';

/** Outside agents: the MCP server at /mcp and the OAuth authorization server that admits them. */
@Module({
  imports: [CartModule],
  controllers: [McpController, AgentOAuthController, ConnectedAgentsController],
  providers: [AgentTokenStore, AgentOAuthModel, McpBearer, McpTools],
})
export class McpModule {}
