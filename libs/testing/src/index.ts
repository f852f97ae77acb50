export { startDatabase } from './database.js';
export type { StartDatabaseOptions, TestDatabase, TestDatabaseKind } from './database.js';
export { startRedis } from './redis.js';
export type { TestRedis, TestRedisResult } from './redis.js';
export { startApp } from './app.js';
export type { StartAppOptions, TestApp } from './app.js';
export { containerRuntimeAvailable } from './runtime.js';
export { spawnApp } from './process.js';
export type { SpawnedApp } from './process.js';
