import { Controller, Delete, Get, HttpCode, Inject } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { Aggregates } from '@shop/commands';
import { ApiRoute, apiSchema, ValidParams } from '@shop/http';
import { currentCorrelationId } from '@shop/logging';
import { connectedAgents, ConnectedAgentView, ReadModelDatabase } from '@shop/read-models';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { gatedErrors, validationError } from '../http/common-errors';
import { READ_DB } from '../infrastructure/tokens';

const connectedAgentList = apiSchema(
  'ConnectedAgentList',
  z.object({
    agents: z.array(
      z.object({
        grantId: z.uuid(),
        clientId: z.uuid(),
        clientName: z.string(),
        scopes: z.array(z.string()),
        connectedAt: z.string(),
        lastUsedAt: z.string().describe('when the agent last got tokens'),
      }),
    ),
  }),
);
const grantParams = z.object({ grantId: z.uuid() });

/** The shopper's view of the agents acting for them, from their profile: list, and disconnect each. */
@Controller('api/auth/agents')
export class ConnectedAgentsController {
  constructor(
    private readonly aggregates: Aggregates,
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
  ) {}

  @Get()
  @ApiRoute({
    summary: 'The outside agents (MCP clients) the shopper connected and has not revoked',
    tags: ['agents'],
    access: 'session',
    responses: { 200: { description: 'Connected agents, newest first', schema: connectedAgentList } },
    errors: [gatedErrors[0]!],
  })
  async list(@CurrentIdentity() identity: SessionIdentity): Promise<{ agents: ConnectedAgentView[] }> {
    return { agents: await connectedAgents(this.db, identity.userId) };
  }

  @Delete(':grantId')
  @HttpCode(204)
  @ApiRoute({
    summary: "Disconnect an agent: its tokens stop working at once and its refresh token can't renew them",
    tags: ['agents'],
    access: 'session',
    params: grantParams,
    responses: { 204: { description: 'Disconnected (or already)' } },
    errors: [
      validationError,
      { status: 404, code: 'AgentGrantNotFound', description: "no such grant, or another shopper's" },
      gatedErrors[0]!,
    ],
  })
  async revoke(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidParams() params: z.infer<typeof grantParams>,
  ): Promise<void> {
    await this.aggregates.agentGrant.execute(
      params.grantId,
      { type: 'RevokeAgentGrant', by: { kind: 'shopper', userId: identity.userId } },
      { actor: { kind: 'user', id: identity.userId }, correlationId: currentCorrelationId() },
    );
  }
}
