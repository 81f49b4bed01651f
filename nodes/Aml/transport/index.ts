export * from './backoff';
export * from './classify';
export * from './errors';
export * from './pagination';
export * from './request';
export { CREDENTIAL_TYPE, useRenewedToken, type AmlContext } from './token';
