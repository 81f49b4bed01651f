export * from './retry';
export * from './errors';
export * from './pagination';
export * from './quote';
export * from './request';
export { CHECK_REQUEST_PATH } from './token';
export { DEFAULT_TIMEOUT_MS, executionCancelSignal, type AmlContext } from './auth';
