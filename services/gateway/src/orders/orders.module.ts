import { Module } from '@nestjs/common';
import { LiveOrders } from './live-orders';
import { GetOrderHandler, ListOrdersHandler } from './order-queries';
import { OrdersController } from './orders.controller';

@Module({ controllers: [OrdersController], providers: [ListOrdersHandler, GetOrderHandler, LiveOrders] })
export class OrdersModule {}
