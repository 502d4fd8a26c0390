import { Module } from '@nestjs/common';
import { RunUserCommandHandler } from '../user/run-user-command';
import { GetOnboardingStatusHandler } from './get-onboarding-status.query';
import { OnboardingController } from './onboarding.controller';

@Module({
  controllers: [OnboardingController],
  providers: [RunUserCommandHandler, GetOnboardingStatusHandler],
})
export class OnboardingModule {}
