export * from './rules';
export * from './assert';
