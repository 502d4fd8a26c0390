import { Module } from '@nestjs/common';
import { CheckoutController } from './checkout.controller';
import { CheckoutHandler } from './checkout.command';

@Module({ controllers: [CheckoutController], providers: [CheckoutHandler], exports: [CheckoutHandler] })
export class CheckoutModule {}
