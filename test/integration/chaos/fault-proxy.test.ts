import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import { buildKubeConfig } from '../../../src/devcluster/kube-config.js';
import { ApiError, isInternalError, isResourceExpired, isServiceUnavailable, isTooManyRequests, type Status } from '../../../src/apimachinery/index.js';
import { TransportError } from '../../../src/kube/kube-errors.js';
import type { KubeObject, WatchEvent } from '../../../src/kube/kube-object.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import { RestClient } from '../../../src/kube/rest-client.js';
import { startFaultProxy, type FaultProxy, type FaultRule } from '../../support/fault-proxy.js';
import { SeededRandom } from '../../support/seeded-random.js';
import { tempDir } from '../../support/endpoints-fixtures.js';
import { waitFor } from '../../support/wait-for.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** A RestClient talking plain HTTP to the proxy (no credentials: the proxy holds them for TLS). */
function clientOf(proxy: FaultProxy, name: string): RestClient {
  return new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: buildKubeConfig({ name, server: proxy.url }) }, { name }), qps: Infinity, requestTimeoutMs: 2_000 });
}

function configMap(name: string): KubeObject & { data: Record<string, string> } {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { a: '1' } };
}

/** The name of a watch event's object (ERROR events carry a Status, which has none). */
function nameOf(event: WatchEvent<KubeObject>): string | undefined {
  return 'metadata' in event.object ? event.object.metadata?.name : undefined;
}

/** What `promise` rejected with (fails if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Reads watch events until the stream ends or throws; returns both. */
async function drain(stream: AsyncIterable<WatchEvent<KubeObject>>): Promise<{ events: WatchEvent<KubeObject>[]; error?: unknown }> {
  const events: WatchEvent<KubeObject>[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

describe('fault proxy in front of a devcluster', () => {
  let cluster: DevCluster;
  let proxy: FaultProxy;
  let client: RestClient;

  beforeAll(async () => {
    cluster = await startDevCluster();
    proxy = await startFaultProxy({ upstream: cluster.url, random: new SeededRandom(1) });
    client = clientOf(proxy, 'proxied');
  });
  afterAll(async () => {
    client.close();
    await proxy.close();
    await cluster.close();
  });

  const only = (rule: FaultRule): void => proxy.setRules([rule]);

  it('forwards requests unchanged without rules', async () => {
    proxy.setRules([]);
    await client.create(CONFIGMAPS, configMap('plain'));
    const read = await client.get<{ data: Record<string, string> }>(`${CONFIGMAPS}/plain`);
    expect(read.data).toEqual({ a: '1' });
  });

  it('answers 429 with Retry-After as a TooManyRequests Status, without forwarding', async () => {
    only({ fault: 'throttle', probability: 1, retryAfterSeconds: 3, match: { methods: ['POST'] } });
    const error = await rejection(client.create(CONFIGMAPS, configMap('throttled')));
    expect(isTooManyRequests(error)).toBe(true);
    expect((error as ApiError).status.details?.retryAfterSeconds).toBe(3);
    proxy.setRules([]);
    expect(await rejection(client.get(`${CONFIGMAPS}/throttled`))).toBeInstanceOf(ApiError);
  });

  it('answers 500 and 503 as Status objects', async () => {
    only({ fault: 'error-500', probability: 1 });
    expect(isInternalError(await rejection(client.get(`${CONFIGMAPS}/plain`)))).toBe(true);
    only({ fault: 'error-503', probability: 1 });
    const unavailable = await rejection(client.get(`${CONFIGMAPS}/plain`));
    expect(isServiceUnavailable(unavailable)).toBe(true);
    expect((unavailable as ApiError).code).toBe(503);
  });

  it('closes the connection before forwarding: the write did not happen', async () => {
    only({ fault: 'close', probability: 1, match: { methods: ['POST'] } });
    expect(await rejection(client.create(CONFIGMAPS, configMap('closed')))).toBeInstanceOf(TransportError);
    proxy.setRules([]);
    expect(await rejection(client.get(`${CONFIGMAPS}/closed`))).toBeInstanceOf(ApiError);
  });

  it('drops the response after forwarding: the write happened, the client saw no answer', async () => {
    only({ fault: 'drop-response', probability: 1, match: { methods: ['POST'] } });
    expect(await rejection(client.create(CONFIGMAPS, configMap('dropped')))).toBeInstanceOf(TransportError);
    proxy.setRules([]);
    expect((await client.get<KubeObject>(`${CONFIGMAPS}/dropped`)).metadata?.name).toBe('dropped');
  });

  it('delays a response', async () => {
    // The delay is drawn up to delayMs: the answer still arrives, counted as delayed.
    only({ fault: 'delay', probability: 1, delayMs: 300 });
    const before = proxy.counts().delay;
    await client.get(`${CONFIGMAPS}/plain`);
    expect(proxy.counts().delay).toBe(before + 1);
  });

  it('answers a watch with an in-stream ERROR 410 Expired, as the API server does for a too-old resourceVersion', async () => {
    only({ fault: 'gone', probability: 1, match: { watch: true } });
    const stream = await client.watch(CONFIGMAPS, { resourceVersion: '1' });
    const { events, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe('ERROR');
    const status = events[0]?.object as Status;
    expect(status).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
    expect(isResourceExpired(new ApiError({ httpStatus: 410, status, verb: 'WATCH', path: CONFIGMAPS }))).toBe(true);
  });

  it('cuts a watch mid-stream: the client sees a broken connection', async () => {
    only({ fault: 'cut-watch', probability: 1, cutAfterMs: 300, match: { watch: true } });
    const stream = await client.watch(CONFIGMAPS, {});
    const { events, error } = await drain(stream);
    // The initial ADDED events may or may not have passed before the cut; the end is an error either way.
    expect(events.every((event) => event.type === 'ADDED')).toBe(true);
    expect(error).toBeInstanceOf(TransportError);
  });

  it('stalls a watch without closing it, until heal', async () => {
    only({ fault: 'stall', probability: 1, match: { watch: true } });
    const stream = await client.watch(CONFIGMAPS, { resourceVersion: '0' });
    proxy.setRules([]);
    const seen: WatchEvent<KubeObject>[] = [];
    const drained = (async () => {
      try {
        for await (const event of stream) seen.push(event);
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    // A second watch, not stalled, opened before the change: once it has the event, the server
    // has sent it to the stalled one too.
    const witness = await client.watch(CONFIGMAPS, { resourceVersion: '0' });
    await client.create(CONFIGMAPS, configMap('unseen'));
    for await (const event of witness) if (nameOf(event) === 'unseen') break;
    witness.close();
    expect(seen.filter((event) => nameOf(event) === 'unseen')).toEqual([]);
    proxy.heal();
    // Open until heal (a clean end would resolve undefined), then broken.
    expect(await drained).toBeInstanceOf(TransportError);
    expect(seen.filter((event) => nameOf(event) === 'unseen')).toEqual([]);
  });

  it('partitions matching requests only, and heal lets them through again', async () => {
    proxy.setRules([]);
    proxy.partition({ path: /^\/apis\/coordination\.k8s\.io\// });
    const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const held = rejection(client.list(leases));
    // Other paths pass during the partition.
    await client.get(`${CONFIGMAPS}/plain`);
    // The held request times out on the client (2 s), or ends at heal: both are transport errors.
    await waitFor('the lease request to be held', () => proxy.counts().partition > 0);
    proxy.heal();
    expect(await held).toBeInstanceOf(TransportError);
    expect((await client.list(leases)).items).toEqual([]);
  });

  it('counts and logs every fault with its time', () => {
    const counts = proxy.counts();
    for (const kind of ['throttle', 'error-500', 'error-503', 'close', 'drop-response', 'delay', 'gone', 'cut-watch', 'stall', 'partition'] as const) {
      expect(counts[kind], kind).toBeGreaterThan(0);
    }
    const log = proxy.log();
    expect(log.length).toBe(Object.values(counts).reduce((a, b) => a + b, 0));
    for (const entry of log) expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
    expect(log.find((entry) => entry.kind === 'throttle')).toMatchObject({ method: 'POST', path: CONFIGMAPS });
  });

  it('fires a rule with its probability, replayed by the seed', async () => {
    const decisions = async (seed: number): Promise<boolean[]> => {
      const seeded = await startFaultProxy({ upstream: cluster.url, random: new SeededRandom(seed), rules: [{ fault: 'error-500', probability: 0.3 }] });
      const seededClient = clientOf(seeded, 'seeded');
      try {
        const outcomes: boolean[] = [];
        for (let index = 0; index < 40; index += 1) outcomes.push(await seededClient.get(`${CONFIGMAPS}/plain`).then(() => false, () => true));
        expect(seeded.counts()['error-500']).toBe(outcomes.filter(Boolean).length);
        return outcomes;
      } finally {
        seededClient.close();
        await seeded.close();
      }
    };
    const first = await decisions(7);
    expect(await decisions(7)).toEqual(first);
    const failed = first.filter(Boolean).length;
    expect(failed).toBeGreaterThan(3);
    expect(failed).toBeLessThan(25);
  });
});

describe('fault proxy in front of an HTTPS API server', () => {
  it('forwards plain HTTP to a TLS upstream with the client certificate it holds', async () => {
    const { dir, remove } = await tempDir('fault-proxy-tls-');
    const cluster = await startDevCluster({ tls: { dir } });
    const user = cluster.kubeConfig.users[0]?.user ?? {};
    const decode = (value: string | undefined): string => Buffer.from(value ?? '', 'base64').toString('utf8');
    const proxy = await startFaultProxy({
      upstream: cluster.url,
      upstreamTls: { ca: decode(cluster.kubeConfig.clusters[0]?.cluster['certificate-authority-data']), cert: decode(user['client-certificate-data']), key: decode(user['client-key-data']) },
      rules: [{ fault: 'error-503', probability: 1, match: { methods: ['DELETE'] } }],
    });
    const client = clientOf(proxy, 'tls');
    try {
      await client.create(CONFIGMAPS, configMap('over-tls'));
      expect((await client.get<KubeObject>(`${CONFIGMAPS}/over-tls`)).metadata?.name).toBe('over-tls');
      expect(isServiceUnavailable(await rejection(client.delete(`${CONFIGMAPS}/over-tls`)))).toBe(true);
    } finally {
      client.close();
      await proxy.close();
      await cluster.close();
      await remove();
    }
  });
});
