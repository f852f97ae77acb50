export { up as default } from './compose.js';
