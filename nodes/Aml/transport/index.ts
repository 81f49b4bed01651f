export * from './retry';
export * from './errors';
export * from './pagination';
export * from './quote';
export * from './request';
export * from './poll';
export { CHECK_REQUEST_PATH, CREDENTIAL_TYPE } from './token';
export { DEFAULT_TIMEOUT_MS, executionCancelSignal, setRunTimeout, type AmlContext } from './auth';
