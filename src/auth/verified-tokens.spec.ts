import { Test } from '@nestjs/testing';
import { VERIFIED_TOKENS, VerifiedTokens } from './verified-tokens';

const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW = NOW_MS / 1000;
const ALICE = { sub: 'alice', scopes: [] };

describe('VerifiedTokens', () => {
  let tokens: VerifiedTokens;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ providers: [VerifiedTokens] }).compile();
    tokens = moduleRef.get(VerifiedTokens);
  });

  it.each<[string, number, number, boolean]>([
    ['just verified', NOW + 3600, 0, true],
    ['1 ms before maxAgeMs', NOW + 3600, VERIFIED_TOKENS.maxAgeMs - 1, true],
    ['at maxAgeMs', NOW + 3600, VERIFIED_TOKENS.maxAgeMs, false],
    ['1 ms before exp + 30 s', NOW + 10, 39_999, true],
    ['at exp + 30 s', NOW + 10, 40_000, false],
  ])('%s: trusted %s', (_case, exp, laterMs, trusted) => {
    tokens.remember('t', ALICE, exp, NOW_MS);

    expect(tokens.get('t', NOW_MS + laterMs)).toEqual(trusted ? ALICE : undefined);
  });

  it('remembers nothing of a token past exp + the clock tolerance', () => {
    tokens.remember('t', ALICE, NOW - 30, NOW_MS);

    expect(tokens.get('t', NOW_MS)).toBeUndefined();
  });

  it('knows only the exact token', () => {
    tokens.remember('t', ALICE, NOW + 60, NOW_MS);

    expect(tokens.get('T', NOW_MS)).toBeUndefined();
  });

  it(`keeps at most ${VERIFIED_TOKENS.max} tokens, forgetting the least recently used`, () => {
    for (let i = 0; i <= VERIFIED_TOKENS.max; i += 1) tokens.remember(`t${i}`, ALICE, NOW + 60, NOW_MS);

    expect(tokens.get('t0', NOW_MS)).toBeUndefined();
    expect(tokens.get(`t${VERIFIED_TOKENS.max}`, NOW_MS)).toEqual(ALICE);
  });
});
