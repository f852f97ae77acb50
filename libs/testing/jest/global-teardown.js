export { teardown as default } from './containers.js';
