/** Quarry's intent layer: seed 002 code-task intents and seed 004 information intents. */
export * from './cues';
export * from './codeTask';
export * from './information';
export * from './semantic';
export * from './context';
export * from './detect';
export * from './stages';
