import { FastifyRequest } from 'fastify';
import { VerifiedIdentity } from './token-verifier';

/** Who a signed-in request comes from: its verified session token, user id included. */
export type SessionIdentity = VerifiedIdentity;

export type AuthenticatedRequest = FastifyRequest & { identity?: SessionIdentity };
