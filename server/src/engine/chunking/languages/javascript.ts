/** JavaScript (and JSX): the shared ECMAScript rules without TypeScript's type declarations. */
import { ecmaDefinition } from './typescript';

export const javascript = ecmaDefinition('javascript', false);
