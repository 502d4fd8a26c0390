import { Module } from '@nestjs/common';
import type { GatewayConfig } from '@shop/config';
import { CONFIG } from '../infrastructure/tokens';
import { OnChainCart } from '../onchain/onchain-cart';
import { CartController } from './cart.controller';
import { CartService } from './cart-service';
import { DatabaseCart } from './database-cart';
import { GetCartHandler } from './get-cart.query';

@Module({
  controllers: [CartController],
  providers: [
    GetCartHandler,
    DatabaseCart,
    OnChainCart,
    {
      provide: CartService,
      inject: [CONFIG, DatabaseCart, OnChainCart],
      useFactory: (config: GatewayConfig, database: DatabaseCart, onChain: OnChainCart) =>
        config.CART_SERVICE === 'onchain' ? onChain : database,
    },
  ],
  exports: [CartService, OnChainCart],
})
export class CartModule {}
