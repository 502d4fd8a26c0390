import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiRoute } from '@shop/http';
import { checkReadiness } from '../readiness';
import { OBSERVABILITY_WIRING, type ObservabilityWiring } from './observability-wiring';

const checkResult = z.object({
  ok: z.boolean(),
  latencyMs: z.number(),
  error: z.string().optional().describe('why the check failed'),
});
const readinessSchema = z.object({ ready: z.boolean(), checks: z.record(z.string(), checkResult) });

/** /ready for orchestrators on the public port; /health stays the plain liveness probe, /metrics is on the metrics server. */
@Controller()
export class ProbesController {
  constructor(@Inject(OBSERVABILITY_WIRING) private readonly wiring: ObservabilityWiring) {}

  @Get('ready')
  @ApiRoute({
    summary: 'Readiness: NATS (with JetStream), Postgres and Redis answer',
    tags: ['probes'],
    access: 'public',
    responses: {
      200: { description: 'Every dependency answers', schema: readinessSchema },
      503: {
        description: 'At least one dependency does not answer; `checks` says which',
        schema: readinessSchema,
      },
    },
  })
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const readiness = await checkReadiness(this.wiring.checks);
    await reply.code(readiness.ready ? 200 : 503).send(readiness);
  }
}
