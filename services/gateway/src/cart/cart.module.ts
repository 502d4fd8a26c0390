import { Module } from '@nestjs/common';
import { AddCartItemHandler } from './add-cart-item.command';
import { CartController } from './cart.controller';
import { GetCartHandler } from './get-cart.query';
import { RemoveCartItemHandler } from './remove-cart-item.command';
import { OnChainCart } from '../onchain/onchain-cart';

@Module({
  controllers: [CartController],
  providers: [AddCartItemHandler, RemoveCartItemHandler, GetCartHandler, OnChainCart],
  exports: [OnChainCart],
})
export class CartModule {}
