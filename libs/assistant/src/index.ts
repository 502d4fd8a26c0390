export * from './tool-schemas';
export * from './product-query-of';
export * from './system-prompt';
export * from './title-prompt';
export * from './offline-model';
export { titleFor } from './offline/title-for';
export * from './assistant-config';
export * from './model-factory';
