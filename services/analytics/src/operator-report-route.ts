import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Kysely } from 'kysely';
import { readAnalyticsReport } from './report/analytics-report';
import { renderHtmlReport } from './report/html-report';
import { AnalyticsDatabase } from './schema/analytics-database';

/** Compared as digests, so neither the length nor the content of the token leaks through timing. */
function sameToken(offered: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(offered), digest(expected));
}

/**
 * GET /api/analytics/report for operators holding ANALYTICS_OPERATOR_TOKEN as a bearer token:
 * the report as JSON, or `?format=html` for the page with the charts.
 */
export function operatorReportRoute(db: Kysely<AnalyticsDatabase>, token: string) {
  return (fastify: FastifyInstance): void => {
    fastify.get('/api/analytics/report', async (request, reply) => {
      const header = request.headers.authorization ?? '';
      const offered = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
      if (!offered || !sameToken(offered, token)) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .send({ error: 'operator token required', code: 'UNAUTHORIZED' });
      }
      const report = await readAnalyticsReport(db);
      const format = (request.query as { format?: string }).format;
      if (format === 'html')
        return reply.header('content-type', 'text/html; charset=utf-8').send(renderHtmlReport(report));
      return report;
    });
  };
}
