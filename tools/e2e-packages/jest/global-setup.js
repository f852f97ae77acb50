// The run's containers (PostgreSQL for the built apps, as every integration suite has them), then the local registry
// with the published packages.
import {
  setup as startContainers,
  teardown as stopContainers,
} from '../../../libs/testing/jest/containers.js';
import { startLocalRegistry } from './local-registry.js';

export default async function globalSetup() {
  await startContainers();
  try {
    await startLocalRegistry();
  } catch (error) {
    await stopContainers();
    throw error;
  }
}
