import type { NliLimits } from '@tp/service-contracts';

/** Room for the longest text even if every character arrives as a 6-byte \uXXXX escape, plus labels. */
export const bodyLimit = (limits: NliLimits) => limits.maxTextChars * 6 + 64 * 1024;
