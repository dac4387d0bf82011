import { describe, expect, it } from 'vitest';
import { TokenVerifierChain, type TokenVerification, type TokenVerifier } from '../../../src/management/token-verifier.js';

function verifier(answers: Record<string, TokenVerification>, asked: string[]): TokenVerifier {
  return {
    verifyToken: async ({ token }) => {
      asked.push(token);
      return answers[token] ?? { outcome: 'unrecognized' };
    },
  };
}

describe('TokenVerifierChain', () => {
  it('the first verifier that recognizes the token answers, refused or authenticated; later ones are not asked', async () => {
    const asked: string[] = [];
    const chain = new TokenVerifierChain([
      { kind: 'access key', verifier: verifier({ off: { outcome: 'refused', error: 'disabled' } }, asked) },
      { kind: 'endpoint token', verifier: verifier({ off: { outcome: 'authenticated', user: { username: 'x', groups: [] } }, jwt: { outcome: 'authenticated', user: { username: 'ci', groups: [] } } }, asked) },
    ]);
    expect(await chain.verifyToken({ token: 'off', audiences: [] })).toEqual({ outcome: 'refused', error: 'disabled' });
    expect(asked).toEqual(['off']);
    expect(await chain.verifyToken({ token: 'jwt', audiences: [] })).toEqual({ outcome: 'authenticated', user: { username: 'ci', groups: [] } });
  });

  it('a token nobody recognizes is refused naming the kinds asked, never the token', async () => {
    const chain = new TokenVerifierChain([
      { kind: 'access key', verifier: verifier({}, []) },
      { kind: 'endpoint token', verifier: verifier({}, []) },
    ]);
    const answer = await chain.verifyToken({ token: 'secret-value', audiences: [] });
    expect(answer).toEqual({ outcome: 'refused', error: 'the token is not a valid access key or endpoint token (unknown, or deleted)' });
    expect(JSON.stringify(answer)).not.toContain('secret-value');
  });

  it('refuses to be built empty', () => {
    expect(() => new TokenVerifierChain([])).toThrow(/at least one verifier/);
  });
});
