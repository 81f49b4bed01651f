export * from './retry';
export * from './errors';
export * from './pagination';
export * from './quote';
export * from './request';
export { classify, NEVER_SENT, type Classified } from '../../shared/n8n/errors';
export { CHECK_REQUEST_PATH, executionCancelSignal, type AmlContext } from './auth';
