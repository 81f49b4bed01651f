export * from './rules';
export * from './fieldErrors';
export * from './parameters';
