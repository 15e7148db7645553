import { describe, expect, it } from 'vitest';
import { secretKeysFromEnv } from '../src/secret-keys-env.js';

describe('AGENTRUN_SECRET_KEY', () => {
  it('is one key, or a comma-separated list (first seals), or nothing', () => {
    expect(secretKeysFromEnv(undefined)).toBeUndefined();
    expect(secretKeysFromEnv('  ')).toBeUndefined();
    expect(secretKeysFromEnv('abc=')).toBe('abc=');
    expect(secretKeysFromEnv('new= , old=')).toEqual(['new=', 'old=']);
  });

  it('refuses an empty entry rather than dropping it', () => {
    expect(() => secretKeysFromEnv('new=,,old=')).toThrow(/empty entry/);
    expect(() => secretKeysFromEnv('new=,')).toThrow(/empty entry/);
  });
});
