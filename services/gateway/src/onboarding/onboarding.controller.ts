import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import type { ShippingAddress, Sizes } from '@shop/domain';
import { ApiError, ApiRoute, ValidBody } from '@shop/http';
import { CurrentIdentity } from '../auth/current-identity.decorator';
import type { SessionIdentity } from '../auth/session-identity';
import { RunUserCommand } from '../user/run-user-command';
import {
  GetOnboardingStatusQuery,
  OnboardingStatus,
  onboardingStatusSchema,
} from './get-onboarding-status.query';
import {
  onboardingStep1Schema,
  onboardingStep2Schema,
  onboardingStep3Schema,
  onboardingStepResponseSchema,
} from './onboarding.schema';

const sessionErrors: ApiError[] = [
  { status: 401, code: 'UNAUTHORIZED', description: 'missing, expired or invalid JWT cookie' },
  { status: 404, code: 'USER_NOT_FOUND', description: 'valid JWT, no user record' },
  { status: 429, code: 'RATE_LIMIT_EXCEEDED', description: 'too many requests' },
];

@Controller('api/onboarding')
export class OnboardingController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get('status')
  @ApiRoute({
    summary: 'Onboarding progress',
    tags: ['onboarding'],
    access: 'session',
    responses: { 200: { description: 'Current step', schema: onboardingStatusSchema } },
    errors: sessionErrors,
  })
  status(@CurrentIdentity() identity: SessionIdentity): Promise<OnboardingStatus> {
    return this.queries.execute(new GetOnboardingStatusQuery(identity.userId));
  }

  @Post('step-1')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Step 1: display name',
    tags: ['onboarding'],
    access: 'session',
    body: onboardingStep1Schema,
    responses: {
      200: { description: 'Saved; the step never decreases', schema: onboardingStepResponseSchema },
    },
    errors: [
      { status: 400, code: 'VALIDATION_ERROR', description: 'displayName missing or over 100 chars' },
      ...sessionErrors,
    ],
  })
  async stepOne(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidBody() body: z.infer<typeof onboardingStep1Schema>,
  ): Promise<{ success: boolean; step: 1 }> {
    await this.commands.execute(new RunUserCommand(identity.userId, { type: 'SetDisplayName', ...body }));
    return { success: true, step: 1 };
  }

  @Post('step-2')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Step 2: shipping address',
    tags: ['onboarding'],
    access: 'session',
    body: onboardingStep2Schema,
    responses: { 200: { description: 'Address saved', schema: onboardingStepResponseSchema } },
    errors: [
      { status: 400, code: 'VALIDATION_ERROR', description: 'required field missing or country not allowed' },
      { status: 403, code: 'STEP_NOT_REACHED', description: 'step 1 not completed' },
      ...sessionErrors,
    ],
  })
  async stepTwo(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidBody() address: ShippingAddress,
  ): Promise<{ success: boolean; step: 2 }> {
    await this.commands.execute(
      new RunUserCommand(identity.userId, { type: 'SaveShippingAddress', address }),
    );
    return { success: true, step: 2 };
  }

  @Post('step-3')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Step 3: clothing sizes; gated routes open at once',
    tags: ['onboarding'],
    access: 'session',
    body: onboardingStep3Schema,
    responses: { 200: { description: 'Sizes saved', schema: onboardingStepResponseSchema } },
    errors: [
      { status: 400, code: 'VALIDATION_ERROR', description: 'invalid topsSize or missing field' },
      { status: 403, code: 'STEP_NOT_REACHED', description: 'step 2 not completed' },
      ...sessionErrors,
    ],
  })
  async stepThree(
    @CurrentIdentity() identity: SessionIdentity,
    @ValidBody() sizes: Sizes,
  ): Promise<{ success: boolean; step: 3 }> {
    await this.commands.execute(new RunUserCommand(identity.userId, { type: 'SaveSizes', sizes }));
    return { success: true, step: 3 };
  }
}
