import { Module } from '@nestjs/common';
import { CreditDepositHandler } from './credit-deposit.command';
import { DepositConfirmController } from './deposit-confirm.controller';
import { DepositVerifyController } from './deposit-verify.controller';

@Module({
  controllers: [DepositConfirmController, DepositVerifyController],
  providers: [CreditDepositHandler],
})
export class DepositModule {}
