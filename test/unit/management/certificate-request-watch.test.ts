import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/apimachinery/index.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { CertificateRequestWatch, type CsrObject, signingOutcomeOf } from '../../../src/management/certificate-request-watch.js';
import { waitFor } from '../../support/wait-for.js';
import { FakeListerWatcher } from '../kube/fake-lister-watcher.js';

const SELECTOR = 'management.vcsync.dev/kube-config-request=true';

/** A request named `name` in the state `status`. */
function csr(name: string, status: CsrObject['status'] = {}, resourceVersion = '2'): CsrObject {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name, resourceVersion }, status };
}

/** The fake lister-watcher plus `get` answering from `current` (404 when absent), counting reads. */
class FakeCsrClient extends FakeListerWatcher {
  readonly current = new Map<string, CsrObject>();
  reads = 0;

  async get<T>(path: string): Promise<T> {
    this.reads += 1;
    const name = decodeURIComponent(path.split('/').pop() ?? '');
    const found = this.current.get(name);
    if (found === undefined) throw new ApiError('NotFound', `certificatesigningrequests "${name}" not found`);
    return structuredClone(found) as T;
  }
}

describe('signingOutcomeOf', () => {
  it('a certificate is issued; a Denied or Failed condition refuses; anything else still waits', () => {
    expect(signingOutcomeOf(csr('a', { certificate: 'Q0VSVA==' }))).toEqual({ kind: 'issued', certificate: 'Q0VSVA==' });
    expect(signingOutcomeOf(csr('a', { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure' }] }))).toEqual({
      kind: 'refused',
      condition: { type: 'Failed', status: 'True', reason: 'SignerValidationFailure' },
    });
    expect(signingOutcomeOf(csr('a', { conditions: [{ type: 'Denied', status: 'True' }] }))?.kind).toBe('refused');
    expect(signingOutcomeOf(csr('a', { conditions: [{ type: 'Approved', status: 'True' }], certificate: '' }))).toBeUndefined();
    expect(signingOutcomeOf(csr('a'))).toBeUndefined();
  });
});

describe('CertificateRequestWatch', () => {
  const watches: CertificateRequestWatch[] = [];
  const start = (client: FakeCsrClient, options: { backstopReadMs?: number } = {}): CertificateRequestWatch => {
    const watch = new CertificateRequestWatch({ client, labelSelector: SELECTOR, backstopReadMs: options.backstopReadMs ?? 60_000 });
    watches.push(watch);
    return watch;
  };
  afterEach(async () => {
    for (const watch of watches.splice(0)) await watch.close();
  });

  it('does no I/O until the first wait; then one label-selected list and watch serve every waiter by name', async () => {
    const client = new FakeCsrClient();
    const watch = start(client);
    expect(client.listCalls).toEqual([]);
    client.current.set('a', csr('a'));
    client.current.set('b', csr('b'));
    const a = watch.wait('a', 30_000);
    const b = watch.wait('b', 30_000);
    await waitFor('the watch to open', () => client.watches.length === 1);
    expect(client.listCalls.map((call) => call.labelSelector)).toEqual([SELECTOR]);
    expect(client.lastWatch.options.labelSelector).toBe(SELECTOR);
    client.lastWatch.push({ type: 'MODIFIED', object: csr('other', { certificate: 'T1RIRVI=' }) as KubeObject });
    client.lastWatch.push({ type: 'MODIFIED', object: csr('b', { certificate: 'Qg==' }, '3') as KubeObject });
    client.lastWatch.push({ type: 'MODIFIED', object: csr('a', { conditions: [{ type: 'Denied', status: 'True', reason: 'No' }] }, '4') as KubeObject });
    // The certificates exist only in the watch's events: the backstop reads see unsigned requests.
    expect(await b.outcome).toEqual({ kind: 'issued', certificate: 'Qg==' });
    expect(await a.outcome).toEqual({ kind: 'refused', condition: { type: 'Denied', status: 'True', reason: 'No' } });
    expect(client.watches).toHaveLength(1);
  });

  it('a request already signed when the watch starts is resolved from its list; a deleted one ends the wait', async () => {
    const client = new FakeCsrClient();
    client.defaultList = { items: [csr('signed', { certificate: 'Uw==' }) as KubeObject], metadata: { resourceVersion: '5' } };
    client.current.set('gone', csr('gone'));
    client.current.set('signed', csr('signed', { certificate: 'Uw==' }));
    const watch = start(client);
    const gone = watch.wait('gone', 30_000);
    expect(await watch.wait('signed', 30_000).outcome).toEqual({ kind: 'issued', certificate: 'Uw==' });
    await waitFor('the watch to open', () => client.watches.length === 1);
    expect(client.lastWatch.options.resourceVersion).toBe('5');
    client.lastWatch.push({ type: 'DELETED', object: csr('gone', {}, '6') as KubeObject });
    expect(await gone.outcome).toEqual({ kind: 'deleted' });
  });

  it('while the cluster refuses the watch, waiters read their requests themselves', async () => {
    const client = new FakeCsrClient();
    const forbidden = new ApiError('Forbidden', 'certificatesigningrequests is forbidden: cannot list');
    client.listScript = Array.from({ length: 50 }, () => forbidden);
    const watch = start(client);
    client.current.set('a', csr('a'));
    const waiting = watch.wait('a', 30_000);
    await waitFor('a read of the request', () => client.reads > 0);
    client.current.set('a', csr('a', { certificate: 'QQ==' }));
    expect(await waiting.outcome).toEqual({ kind: 'issued', certificate: 'QQ==' });
    expect(client.watches).toEqual([]);
  });

  it('times out, can be cancelled, and a second waiter of a name replaces the first', async () => {
    const client = new FakeCsrClient();
    client.current.set('slow', csr('slow'));
    const watch = start(client);
    expect(await watch.wait('slow', 50).outcome).toEqual({ kind: 'timeout' });
    const first = watch.wait('slow', 30_000);
    const second = watch.wait('slow', 30_000);
    expect(await first.outcome).toEqual({ kind: 'cancelled' });
    second.cancel();
    second.cancel();
    expect(await second.outcome).toEqual({ kind: 'cancelled' });
  });

  it('close stops the watch; waiters after it still get their outcome by reading', async () => {
    const client = new FakeCsrClient();
    client.current.set('a', csr('a', { certificate: 'QQ==' }));
    const watch = start(client);
    expect((await watch.wait('a', 30_000).outcome).kind).toBe('issued');
    await waitFor('the watch to open', () => client.watches.length === 1);
    await watch.close();
    expect(client.lastWatch.closed).toBe(true);
    client.current.set('b', csr('b', { certificate: 'Qg==' }));
    expect(await watch.wait('b', 30_000).outcome).toEqual({ kind: 'issued', certificate: 'Qg==' });
    expect(client.watches).toHaveLength(1);
  });
});
