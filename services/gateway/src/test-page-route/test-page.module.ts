import { Module } from '@nestjs/common';
import { TestPageController } from './test-page.controller';

@Module({ controllers: [TestPageController] })
export class TestPageModule {}
