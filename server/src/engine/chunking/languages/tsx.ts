/** TSX: the TypeScript rules over the tsx grammar. */
import { ecmaDefinition } from './typescript';

export const tsx = ecmaDefinition('tsx', true);
