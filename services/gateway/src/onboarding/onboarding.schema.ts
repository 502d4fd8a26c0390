import { z } from 'zod';
import { displayNameSchema, shippingAddressSchema, sizesSchema } from '@shop/domain';
import { apiSchema } from '@shop/http';

/** The onboarding steps' bodies (the user decider's own rules) and their common answer, named for /doc. */
export const onboardingStep1Schema = apiSchema('OnboardingStep1', displayNameSchema);
export const onboardingStep2Schema = apiSchema('OnboardingStep2', shippingAddressSchema);
export const onboardingStep3Schema = apiSchema('OnboardingStep3', sizesSchema);

export const onboardingStepResponseSchema = apiSchema(
  'OnboardingStepResponse',
  z.object({ success: z.boolean(), step: z.number().int().min(1).max(3).describe('the step just saved') }),
);
