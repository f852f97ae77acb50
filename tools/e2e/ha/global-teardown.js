export { down as default } from './compose.js';
