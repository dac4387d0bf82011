// An OCI image layout (https://github.com/opencontainers/image-spec/blob/main/image-layout.md)
// written from layer entries: tar each layer (tar-archive.mjs), gzip it, store every blob under
// its sha256, then the configuration, the manifest and index.json. JSON objects are built with a
// fixed key order and no whitespace, so the same spec gives the same digests.
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tarArchive } from './tar-archive.mjs';

const MANIFEST_TYPE = 'application/vnd.oci.image.manifest.v1+json';
const CONFIG_TYPE = 'application/vnd.oci.image.config.v1+json';
const LAYER_TYPE = 'application/vnd.oci.image.layer.v1.tar+gzip';
const INDEX_TYPE = 'application/vnd.oci.image.index.v1+json';
const REF_NAME = 'org.opencontainers.image.ref.name';

function sha256(data) {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

async function writeBlob(directory, data) {
  const digest = sha256(data);
  await writeFile(join(directory, 'blobs', 'sha256', digest.slice('sha256:'.length)), data);
  return { digest, size: data.length };
}

/** See oci-layout.d.mts. */
export async function writeOciLayout(directory, image) {
  const exists = await stat(directory).then(
    () => true,
    () => false,
  );
  if (exists) throw new Error(`${directory} already exists: an OCI layout is written into a new directory; remove it or choose another path`);
  await mkdir(join(directory, 'blobs', 'sha256'), { recursive: true });
  const layers = [];
  for (const layer of image.layers) {
    const tar = tarArchive(layer.entries, { mtime: image.sourceDateEpoch });
    // level 9 and Node's zlib: the gzip header carries no name and mtime 0, so the bytes follow
    // from the tar and the zlib code alone.
    const blob = await writeBlob(directory, gzipSync(tar, { level: 9 }));
    layers.push({ ...blob, diffId: sha256(tar) });
  }
  const created = new Date(image.sourceDateEpoch * 1000).toISOString().replace('.000Z', 'Z');
  const config = {
    created,
    architecture: 'amd64',
    os: 'linux',
    config: image.config,
    rootfs: { type: 'layers', diff_ids: layers.map((layer) => layer.diffId) },
    history: image.layers.map((layer) => ({ created, created_by: layer.comment })),
  };
  const configBlob = await writeBlob(directory, Buffer.from(JSON.stringify(config)));
  const manifest = {
    schemaVersion: 2,
    mediaType: MANIFEST_TYPE,
    config: { mediaType: CONFIG_TYPE, digest: configBlob.digest, size: configBlob.size },
    layers: layers.map((layer) => ({ mediaType: LAYER_TYPE, digest: layer.digest, size: layer.size })),
  };
  const manifestBlob = await writeBlob(directory, Buffer.from(JSON.stringify(manifest)));
  const index = {
    schemaVersion: 2,
    mediaType: INDEX_TYPE,
    manifests: [{ mediaType: MANIFEST_TYPE, digest: manifestBlob.digest, size: manifestBlob.size, annotations: { [REF_NAME]: image.refName } }],
  };
  await writeFile(join(directory, 'index.json'), JSON.stringify(index));
  await writeFile(join(directory, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  return { manifestDigest: manifestBlob.digest, configDigest: configBlob.digest, layers };
}

/** Reads and checks a blob: its bytes must hash to the digest that names it. */
async function readBlob(directory, digest) {
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`${directory}: ${digest} is not a sha256 digest`);
  const data = await readFile(join(directory, 'blobs', 'sha256', digest.slice('sha256:'.length)));
  if (sha256(data) !== digest) throw new Error(`${directory}: blob ${digest} does not match its digest (the layout is damaged; build it again)`);
  return data;
}

/** See oci-layout.d.mts. */
export async function readOciLayout(directory) {
  const index = JSON.parse(await readFile(join(directory, 'index.json'), 'utf8'));
  if (index.manifests?.length !== 1) throw new Error(`${directory}/index.json lists ${index.manifests?.length ?? 0} manifests; expected exactly one image`);
  const [descriptor] = index.manifests;
  const manifest = JSON.parse((await readBlob(directory, descriptor.digest)).toString('utf8'));
  const config = JSON.parse((await readBlob(directory, manifest.config.digest)).toString('utf8'));
  for (const [i, layer] of manifest.layers.entries()) {
    const tar = gunzipSync(await readBlob(directory, layer.digest));
    if (sha256(tar) !== config.rootfs.diff_ids[i]) throw new Error(`${directory}: layer ${i} does not match diff_id ${config.rootfs.diff_ids[i]}`);
  }
  return { manifestDigest: descriptor.digest, refName: descriptor.annotations?.[REF_NAME], manifest, config };
}
