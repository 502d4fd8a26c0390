import { Module } from '@nestjs/common';
import { DevWalletController } from './dev-wallet.controller';
import { TestPageController } from './test-page.controller';

@Module({ controllers: [TestPageController, DevWalletController] })
export class TestPageModule {}
