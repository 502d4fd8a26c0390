import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { DomainError } from '@shop/domain';
import { apiSchema } from '@shop/http';
import { userProfile } from '@shop/read-models';
import type { ReadModelDatabase } from '@shop/read-models';
import { READ_DB } from '../infrastructure/tokens';

export const userProfileSchema = apiSchema(
  'UserProfile',
  z.object({
    userId: z.uuid(),
    email: z.string().nullable(),
    walletAddress: z.string().nullable().describe('Sui address (66 hex chars); null until provisioned'),
    walletStatus: z.enum(['none', 'pending', 'active', 'failed']),
    onboardingStep: z.number().int().min(0).max(3),
    evmAddress: z.string().nullable().describe('EVM wallet (42 hex chars) used for provider payments'),
    sizes: z
      .object({ topsSize: z.string(), bottomsSize: z.string(), footwearSize: z.string() })
      .nullable()
      .describe('The sizes saved at onboarding step 3 (null before), which clients may preselect'),
  }),
);
export type UserProfile = z.infer<typeof userProfileSchema>;

export class GetProfileQuery extends Query<UserProfile> {
  constructor(readonly userId: string) {
    super();
  }
}

@QueryHandler(GetProfileQuery)
export class GetProfileHandler implements IQueryHandler<GetProfileQuery> {
  constructor(@Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>) {}

  async execute(query: GetProfileQuery): Promise<UserProfile> {
    const profile = await userProfile(this.db, query.userId);
    if (!profile) throw new DomainError('not_found', 'USER_NOT_FOUND', 'No user record for this session');
    return profile;
  }
}
