export { down as default } from './stack.js';
