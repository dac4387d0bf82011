import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readOciLayout, writeOciLayout, type ImageSpec } from '../../../../tools/image/oci-layout.mjs';

const IMAGE: ImageSpec = {
  layers: [
    { comment: 'base', entries: [{ type: 'directory', path: 'tmp', mode: 0o1777 }, { type: 'file', path: 'etc/passwd', mode: 0o644, data: Buffer.from('root:x:0:0::/:/sbin/nologin\n') }] },
    { comment: 'app', entries: [{ type: 'file', path: 'app/main.js', mode: 0o644, data: Buffer.from('console.log(1)\n') }] },
  ],
  config: { User: '1000:1000', Env: ['PATH=/usr/local/bin'], Entrypoint: ['node', '/app/main.js'], Cmd: ['start'], WorkingDir: '/app' },
  refName: '1.2.3',
  sourceDateEpoch: 0,
};

function sha256(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

describe('writeOciLayout', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'oci-layout-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes an image layout whose every blob is named by its sha256 and referenced from index.json', async () => {
    const layout = join(dir, 'oci');
    const written = await writeOciLayout(layout, IMAGE);
    expect(JSON.parse(await readFile(join(layout, 'oci-layout'), 'utf8'))).toEqual({ imageLayoutVersion: '1.0.0' });
    const index = JSON.parse(await readFile(join(layout, 'index.json'), 'utf8'));
    expect(index.manifests).toEqual([
      { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: written.manifestDigest, size: expect.any(Number), annotations: { 'org.opencontainers.image.ref.name': '1.2.3' } },
    ]);
    const blobs = await readdir(join(layout, 'blobs', 'sha256'));
    for (const name of blobs) expect(sha256(await readFile(join(layout, 'blobs', 'sha256', name)))).toBe(`sha256:${name}`);
    // Two layers, a config and a manifest, nothing else.
    expect(blobs).toHaveLength(4);

    const { manifest, config, refName, manifestDigest } = await readOciLayout(layout);
    expect(manifestDigest).toBe(written.manifestDigest);
    expect(refName).toBe('1.2.3');
    expect(manifest.layers.map((layer) => layer.mediaType)).toEqual(['application/vnd.oci.image.layer.v1.tar+gzip', 'application/vnd.oci.image.layer.v1.tar+gzip']);
    expect(config.config).toEqual(IMAGE.config);
    expect(config.created).toBe('1970-01-01T00:00:00Z');
    const firstLayer = gunzipSync(await readFile(join(layout, 'blobs', 'sha256', manifest.layers[0]!.digest.slice(7))));
    expect(config.rootfs.diff_ids[0]).toBe(sha256(firstLayer));
  });

  it('gives the same digest for the same spec, another for another epoch or another byte', async () => {
    const first = await writeOciLayout(join(dir, 'a'), IMAGE);
    const again = await writeOciLayout(join(dir, 'b'), { ...IMAGE, layers: [...IMAGE.layers].map((layer) => ({ ...layer, entries: [...layer.entries].reverse() })) });
    expect(again).toEqual(first);
    const later = await writeOciLayout(join(dir, 'c'), { ...IMAGE, sourceDateEpoch: 1 });
    expect(later.manifestDigest).not.toBe(first.manifestDigest);
    const changed = await writeOciLayout(join(dir, 'd'), { ...IMAGE, layers: [IMAGE.layers[0]!, { comment: 'app', entries: [{ type: 'file', path: 'app/main.js', mode: 0o644, data: Buffer.from('console.log(2)\n') }] }] });
    expect(changed.layers[0]).toEqual(first.layers[0]);
    expect(changed.layers[1]).not.toEqual(first.layers[1]);
  });

  it('refuses to write into an existing directory', async () => {
    await expect(writeOciLayout(dir, IMAGE)).rejects.toThrow(/already exists/);
  });

  it('reading finds a damaged blob', async () => {
    const layout = join(dir, 'oci');
    const written = await writeOciLayout(layout, IMAGE);
    await writeFile(join(layout, 'blobs', 'sha256', written.layers[1]!.digest.slice(7)), 'not a layer');
    await expect(readOciLayout(layout)).rejects.toThrow(/does not match its digest/);
  });
});
