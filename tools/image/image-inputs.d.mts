/** The Node.js runtime package pinned for the image (see image-inputs.mjs). */
export const NODE_RUNTIME: Readonly<{ version: string; integrity: string }>;

/** A Debian package pinned by version and sha256, and the files the image takes from it. */
export interface DebianPackagePin {
  readonly name: string;
  readonly version: string;
  readonly sha256: string;
  readonly files: readonly string[];
}

export const DEBIAN_PACKAGES: readonly DebianPackagePin[];
export const IMAGE_UID: number;
export const IMAGE_GID: number;
export const APP_DIR: string;
export const ENTRYPOINT: readonly string[];
export const CMD: readonly string[];
export const EXPOSED_PORTS: readonly string[];
