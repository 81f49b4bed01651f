export * from './backoff';
export * from './errors';
export * from './pagination';
export * from './request';
