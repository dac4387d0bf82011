import type { TarEntry } from './tar-archive.mjs';

/** The runtime part of an OCI image configuration (field names as the image spec spells them). */
export interface OciRuntimeConfig {
  readonly User: string;
  readonly Env: readonly string[];
  readonly Entrypoint: readonly string[];
  readonly Cmd: readonly string[];
  readonly WorkingDir: string;
  readonly ExposedPorts?: Readonly<Record<string, Record<string, never>>>;
  readonly Labels?: Readonly<Record<string, string>>;
}

/** One layer: what it holds, and the sentence `history` shows for it. */
export interface LayerSpec {
  readonly comment: string;
  readonly entries: readonly TarEntry[];
}

/** What goes into the image. */
export interface ImageSpec {
  readonly layers: readonly LayerSpec[];
  readonly config: OciRuntimeConfig;
  /** The tag recorded in index.json (`org.opencontainers.image.ref.name`), e.g. `0.1.0`. */
  readonly refName: string;
  /** Seconds since the epoch: every file's mtime and the config's `created`. */
  readonly sourceDateEpoch: number;
}

/** A written layout. */
export interface WrittenLayout {
  /** `sha256:…` of the image manifest: the digest a registry shows after a push that keeps the blobs. */
  readonly manifestDigest: string;
  /** `sha256:…` of the configuration blob (the image ID `docker images` shows). */
  readonly configDigest: string;
  /** Per layer, in order: digest and size of the gzip blob, and the digest of the uncompressed tar. */
  readonly layers: readonly { readonly digest: string; readonly size: number; readonly diffId: string }[];
}

/**
 * Writes `image` as an OCI image layout (oci-layout, index.json, blobs/sha256/…) into `directory`,
 * which must not exist yet; nothing in the output depends on the clock, the machine or the order
 * of entries. Layers are gzip-compressed (level 9, no name, mtime 0 in the gzip header).
 */
export function writeOciLayout(directory: string, image: ImageSpec): Promise<WrittenLayout>;

/** The manifest of the single image in the layout at `directory` and its parsed configuration. */
export function readOciLayout(directory: string): Promise<{
  readonly manifestDigest: string;
  readonly refName: string | undefined;
  readonly manifest: { readonly layers: readonly { readonly mediaType: string; readonly digest: string; readonly size: number }[]; readonly config: { readonly digest: string } };
  readonly config: { readonly config: OciRuntimeConfig; readonly rootfs: { readonly diff_ids: readonly string[] }; readonly created?: string };
}>;
