export * from './retry';
export * from './classify';
export * from './errors';
export * from './pagination';
export * from './quote';
export * from './request';
export type { AmlContext } from './auth';
