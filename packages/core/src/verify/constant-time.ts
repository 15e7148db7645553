/**
 * Compare two byte strings in time that depends only on their lengths, so an attacker cannot learn
 * how many leading bytes of a guessed signature were right. Lengths are public (a signature's
 * length is fixed by its scheme), so a length mismatch answers at once.
 */
export const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
};
