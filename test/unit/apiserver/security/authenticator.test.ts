import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createAuthenticator,
  STATIC_TOKEN_USER,
  type AuthenticatorOptions,
} from '../../../../src/apiserver/security/authenticator.js';

interface ReviewRequest {
  contentType: string | undefined;
  body: { apiVersion?: string; kind?: string; spec?: { token?: string } };
}

/** A TokenReview webhook answering by token: good → jane, bad → denied, slow → never, broken → 500. */
async function startWebhook(): Promise<{ url: string; requests: ReviewRequest[]; server: Server }> {
  const requests: ReviewRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const body = JSON.parse(text) as ReviewRequest['body'];
      requests.push({ contentType: req.headers['content-type'], body });
      const token = body.spec?.token;
      const reply = (status: object): void => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', status }));
      };
      if (token === 'good') {
        reply({ authenticated: true, user: { username: 'jane', groups: ['dev', 'system:authenticated'] } });
      } else if (token === 'bad') {
        reply({ authenticated: false, error: 'token expired' });
      } else if (token === 'broken') {
        res.statusCode = 500;
        res.end('internal error');
      }
      // 'slow': never answers; the test's timeout must fire.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/review`, requests, server };
}

describe('createAuthenticator', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
  async function withWebhook(options: Omit<AuthenticatorOptions, 'tokenReviewUrl'> = {}) {
    const webhook = await startWebhook();
    servers.push(webhook.server);
    const authenticator = createAuthenticator({ ...options, tokenReviewUrl: webhook.url });
    const bearer = (token: string) => authenticator.authenticate({ authorization: `Bearer ${token}`, clientCertificate: undefined });
    return { webhook, authenticator, bearer };
  }

  it('takes the user from a verified client certificate: CN and O', async () => {
    const authenticator = createAuthenticator({ tokens: ['secret'] });
    const result = await authenticator.authenticate({
      authorization: 'Bearer wrong-token',
      clientCertificate: { authorized: true, commonName: 'admin', organizations: ['system:masters'] },
    });
    expect(result).toEqual({ ok: true, user: { username: 'admin', groups: ['system:masters'] } });
  });

  it('ignores an unverified client certificate and explains what was missing', async () => {
    const authenticator = createAuthenticator({ tokens: ['secret'] });
    const untrusted = { authorized: false, commonName: 'admin', organizations: ['system:masters'] };
    expect(await authenticator.authenticate({ authorization: undefined, clientCertificate: untrusted })).toEqual({
      ok: false,
      reason: 'client certificate not trusted',
    });
    expect(await authenticator.authenticate({ authorization: 'Bearer secret', clientCertificate: untrusted })).toEqual({
      ok: true,
      user: { username: STATIC_TOKEN_USER.username, groups: [...STATIC_TOKEN_USER.groups] },
    });
    expect(await authenticator.authenticate({ authorization: undefined, clientCertificate: undefined })).toEqual({
      ok: false,
      reason: 'no credentials',
    });
  });

  it('accepts static bearer tokens and rejects others without a webhook', async () => {
    const authenticator = createAuthenticator({ tokens: ['first-token', 'second-token'] });
    const check = (authorization: string) => authenticator.authenticate({ authorization, clientCertificate: undefined });
    expect(await check('Bearer second-token')).toEqual({ ok: true, user: { username: 'admin', groups: ['system:masters'] } });
    expect(await check('bearer first-token')).toMatchObject({ ok: true });
    expect(await check('Bearer first-token-but-longer')).toEqual({ ok: false, reason: 'invalid bearer token' });
    expect(await check('Bearer ')).toMatchObject({ ok: false });
    expect(await check('Basic YWRtaW46c2VjcmV0')).toMatchObject({ ok: false, reason: expect.stringContaining('Bearer') as string });
  });

  it('asks the TokenReview webhook about unknown tokens and caches its answers', async () => {
    const { webhook, bearer } = await withWebhook({ tokens: ['static'] });
    expect(await bearer('good')).toEqual({ ok: true, user: { username: 'jane', groups: ['dev', 'system:authenticated'] } });
    expect(webhook.requests).toEqual([
      { contentType: 'application/json', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'good' } } },
    ]);
    expect(await bearer('bad')).toEqual({ ok: false, reason: 'token rejected by token review webhook: token expired' });
    expect(await bearer('good')).toMatchObject({ ok: true });
    expect(await bearer('bad')).toMatchObject({ ok: false });
    expect(await bearer('static')).toMatchObject({ ok: true, user: { username: 'admin' } });
    expect(webhook.requests.map((r) => r.body.spec?.token)).toEqual(['good', 'bad']);
  });

  it('shares one webhook call among concurrent requests with the same token', async () => {
    const { webhook, bearer } = await withWebhook();
    const results = await Promise.all([bearer('good'), bearer('good'), bearer('good')]);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(webhook.requests).toHaveLength(1);
  });

  it('calls the webhook every time when caching is off', async () => {
    const { webhook, bearer } = await withWebhook({ cacheTtlMs: 0 });
    await bearer('good');
    await bearer('good');
    expect(webhook.requests).toHaveLength(2);
  });

  it('turns webhook failures into reasons, never exceptions, and does not cache them', async () => {
    const { webhook, bearer } = await withWebhook({ tokenReviewTimeoutMs: 300 });
    expect(await bearer('broken')).toEqual({ ok: false, reason: 'token review webhook answered HTTP 500' });
    expect(await bearer('broken')).toMatchObject({ ok: false });
    expect(webhook.requests.filter((r) => r.body.spec?.token === 'broken')).toHaveLength(2);

    const started = Date.now();
    expect(await bearer('slow')).toEqual({ ok: false, reason: 'token review webhook did not answer within 300 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);

    const unreachable = createAuthenticator({ tokenReviewUrl: 'http://127.0.0.1:1/review', tokenReviewTimeoutMs: 5_000 });
    const result = await unreachable.authenticate({ authorization: 'Bearer good', clientCertificate: undefined });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('token review webhook failed') as string });
  });

  it('validates its options', () => {
    expect(() => createAuthenticator({ tokenReviewUrl: 'ftp://x' })).toThrow(RangeError);
    expect(() => createAuthenticator({ tokenReviewUrl: 'not a url' })).toThrow(TypeError);
    expect(() => createAuthenticator({ tokens: [''] })).toThrow(RangeError);
    expect(() => createAuthenticator({ tokenReviewTimeoutMs: 0 })).toThrow(RangeError);
  });
});
