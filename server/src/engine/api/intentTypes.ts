/**
 * Seed 002's IntentType; open-ended (FR-028): unknown strings are accepted and treated as no intent.
 * A leaf module (it imports nothing), so that the result schema and the ranking code can both use it.
 */
export const INTENT_TYPES = ['UNDERSTAND', 'IMPLEMENT', 'DEBUG', 'OPTIMIZE', 'TEST', 'CONFIGURE', 'DOCUMENT'] as const;
export type IntentType = (typeof INTENT_TYPES)[number];
