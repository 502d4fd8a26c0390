import { Controller, Get } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute } from '@shop/http';

@Controller()
export class HealthController {
  @Get('health')
  @ApiRoute({
    summary: 'Liveness probe',
    tags: ['probes'],
    access: 'public',
    responses: { 200: { description: 'The process is up', schema: z.object({ ok: z.literal(true) }) } },
  })
  health(): { ok: true } {
    return { ok: true };
  }
}
