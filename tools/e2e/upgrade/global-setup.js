export { up as default } from './stack.js';
