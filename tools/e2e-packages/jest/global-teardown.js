import { teardown as stopContainers } from '../../../libs/testing/jest/containers.js';
import { stopLocalRegistry } from './local-registry.js';

export default async function globalTeardown() {
  await Promise.allSettled([stopLocalRegistry(), stopContainers()]);
}
