import { Inject } from '@nestjs/common';
import { IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { userNotFound } from '@shop/domain';
import { apiSchema } from '@shop/http';
import { onboardingStepOf } from '@shop/read-models';
import type { ReadModelDatabase } from '@shop/read-models';
import { READ_DB } from '../infrastructure/tokens';

export const onboardingStatusSchema = apiSchema(
  'OnboardingStatus',
  z.object({
    step: z.number().int().min(0).max(3),
    completed: z.boolean().describe('true exactly when step is 3'),
  }),
);
export type OnboardingStatus = z.infer<typeof onboardingStatusSchema>;

export class GetOnboardingStatusQuery extends Query<OnboardingStatus> {
  constructor(readonly userId: string) {
    super();
  }
}

@QueryHandler(GetOnboardingStatusQuery)
export class GetOnboardingStatusHandler implements IQueryHandler<GetOnboardingStatusQuery> {
  constructor(@Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>) {}

  async execute({ userId }: GetOnboardingStatusQuery): Promise<OnboardingStatus> {
    const step = await onboardingStepOf(this.db, userId);
    if (step === undefined) throw userNotFound();
    return { step, completed: step === 3 };
  }
}
