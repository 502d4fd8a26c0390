import { Module } from '@nestjs/common';
import { CatalogImagesController } from './catalog-images.controller';

@Module({ controllers: [CatalogImagesController] })
export class CatalogImagesModule {}
