import { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { IdentityProvider } from './identity';
import { parseOrReject, ProviderApiError } from './provider-api-error';

const refreshBody = z.object({ refresh: z.string().min(1) });

export function registerIdentityRoutes(app: FastifyInstance, identity: IdentityProvider): void {
  // Served outside /api, like the provider's, and without an API key: verifiers fetch it anonymously.
  app.get('/.well-known/jwks.json', { config: { operation: 'jwks' } }, async () => identity.jwks());

  app.post(
    '/api/2024-09-26/session/sdk/auth/refresh',
    { config: { operation: 'auth.refresh' } },
    async (request) => {
      const { refresh } = parseOrReject(refreshBody, request.body);
      const session = await identity.refresh(refresh);
      if (!session)
        throw new ProviderApiError(401, 'Invalid or expired refresh token', 'invalid-refresh-token');
      return session;
    },
  );
}
