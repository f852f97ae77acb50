export { setup as default } from './containers.js';
