import { FastifyRequest } from 'fastify';
import { VerifiedIdentity } from './token-verifier';

export interface SessionIdentity extends VerifiedIdentity {
  userId: string;
}

export type AuthenticatedRequest = FastifyRequest & { identity?: SessionIdentity };
