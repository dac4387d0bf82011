import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildKubeConfig, kubeConfigYaml } from '../../src/devcluster/kube-config.js';
import type { ManagementFixture } from './management-fixture.js';
import { startRealControlPlane, type RealControlPlane, type RealControlPlaneOptions } from './real-control-plane.js';

/** A real control plane whose kube-apiserver authenticates bearer tokens through a management fixture's TokenReview webhook. */
export interface TokenWebhookPlane {
  readonly plane: RealControlPlane;
  /** Stops the control plane and removes the webhook's kubeconfig. */
  close(): Promise<void>;
}

/**
 * Starts the real control plane with `--authentication-token-webhook-*` pointing at
 * `management`'s TokenReview endpoint. The webhook config is a kubeconfig whose cluster is the
 * webhook (URL + CA) and which has no user credential (ADR 0020).
 */
export async function startTokenWebhookPlane(
  management: ManagementFixture,
  options: { cacheTtlSeconds: number } & Omit<RealControlPlaneOptions, 'tokenWebhook'>,
): Promise<TokenWebhookPlane> {
  const { cacheTtlSeconds, ...planeOptions } = options;
  const dir = await mkdtemp(join(tmpdir(), 'token-webhook-'));
  try {
    const configPath = join(dir, 'token-webhook.kubeconfig');
    await writeFile(configPath, kubeConfigYaml(buildKubeConfig({ name: 'vcsync-token-review', server: management.server.tokenReviewUrl, caCertPem: management.tls.caCertPem })));
    const plane = await startRealControlPlane({ ...planeOptions, tokenWebhook: { configPath, cacheTtlSeconds } });
    return {
      plane,
      close: async () => {
        await plane.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
