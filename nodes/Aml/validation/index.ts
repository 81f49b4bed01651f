export * from './rules';
export * from './assert';
export * from './parameters';
