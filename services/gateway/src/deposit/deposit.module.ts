import { Module } from '@nestjs/common';
import { CoinDecimals } from './coin-decimals';
import { CreditDepositHandler } from './credit-deposit.command';
import { DepositConfirmController } from './deposit-confirm.controller';
import { DepositCrediting } from './deposit-crediting';
import { DepositCreditingReaction } from './deposit-crediting.reaction';
import { DepositReconciler } from './deposit-reconciler';
import { DepositVerifyController } from './deposit-verify.controller';

@Module({
  controllers: [DepositConfirmController, DepositVerifyController],
  providers: [
    CreditDepositHandler,
    CoinDecimals,
    DepositCrediting,
    DepositCreditingReaction,
    DepositReconciler,
  ],
  exports: [DepositCreditingReaction, DepositReconciler],
})
export class DepositModule {}
