import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ApiError } from '../apimachinery/index.js';
import type { ObjectWriter, ResourceType } from '../apiserver/index.js';
import type { Logger } from '../observe/logger.js';
import { generateAccessKey } from './access-key-hasher.js';
import { BOOTSTRAP_ADMIN_KEY_NAME, BOOTSTRAP_ADMIN_USER, KEY_HASH_SECRET_BYTES, MANAGEMENT_ADMIN_GROUP, MANAGEMENT_FIELD_MANAGER, PLATFORM_KEY_TYPE } from './management-constants.js';

/** Writes `text` to `path` readable by the owner only (0600), through a temporary file and a rename. */
export async function writeSecretFile(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o600 });
  await rename(temporary, path);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * The installation's access-key HMAC secret from `path` (base64), created (random, 0600) when the
 * file does not exist. Every replica must read the same secret.
 */
export async function ensureKeyHashSecret(path: string): Promise<Buffer> {
  if (await exists(path)) {
    const secret = Buffer.from((await readFile(path, 'utf8')).trim(), 'base64');
    if (secret.length < 16) throw new Error(`the access-key hash secret in ${path} is shorter than 16 bytes; delete the file to generate a new one (every access key then stops working)`);
    return secret;
  }
  const secret = randomBytes(KEY_HASH_SECRET_BYTES);
  await writeSecretFile(path, `${secret.toString('base64')}\n`);
  return secret;
}

/** What {@link ensureBootstrapAdminKey} needs. */
export interface BootstrapAdminKeyOptions {
  writer: ObjectWriter;
  /** The served OwnedAccessKey resource. */
  type: ResourceType;
  /** Where the key is written (mode 0600) when it is created. */
  keyPath: string;
  logger: Logger;
}

/** The OwnedAccessKey of the bootstrap admin key, with `key` (stored only as its hash). */
function bootstrapObject(type: ResourceType, key: string): Record<string, unknown> {
  return {
    apiVersion: type.apiVersion,
    kind: type.kind,
    metadata: { name: BOOTSTRAP_ADMIN_KEY_NAME },
    spec: { displayName: 'vcsync bootstrap admin key', user: BOOTSTRAP_ADMIN_USER, groups: [MANAGEMENT_ADMIN_GROUP], type: PLATFORM_KEY_TYPE, key },
  };
}

/**
 * On first start, creates the bootstrap admin key (user `admin`, group {@link MANAGEMENT_ADMIN_GROUP})
 * and writes it to `keyPath` with mode 0600; logs the path, never the key. When the key object
 * exists already, or another replica creates it first (AlreadyExists), nothing is written (a
 * missing file is reported: rotate the key to get a new one). Returns whether it created the key.
 */
export async function ensureBootstrapAdminKey(options: BootstrapAdminKeyOptions): Promise<boolean> {
  const { writer, type, keyPath, logger } = options;
  const present = await writer.get(type, '', BOOTSTRAP_ADMIN_KEY_NAME).then(
    () => true,
    (error: unknown) => {
      if (error instanceof ApiError && error.reason === 'NotFound') return false;
      throw error;
    },
  );
  if (present) {
    if (!(await exists(keyPath))) {
      logger.warn({ keyPath, accessKey: BOOTSTRAP_ADMIN_KEY_NAME }, 'The bootstrap admin key exists but its file does not; run `vcsync accesskey rotate-admin` to write a new one');
    }
    return false;
  }
  const key = generateAccessKey();
  try {
    await writer.create(type, '', bootstrapObject(type, key), { dryRun: false, fieldManager: MANAGEMENT_FIELD_MANAGER });
  } catch (error: unknown) {
    if (!(error instanceof ApiError && error.reason === 'AlreadyExists')) throw error;
    // Another replica starting at the same time created it first (and writes its file): use that one.
    logger.info({ keyPath, accessKey: BOOTSTRAP_ADMIN_KEY_NAME }, 'Another replica created the bootstrap admin access key; its file is written by that replica');
    return false;
  }
  try {
    await writeSecretFile(keyPath, `${key}\n`);
  } catch (error: unknown) {
    // A key nobody can read is useless: remove it so that the next start creates it again.
    await writer.delete(type, '', BOOTSTRAP_ADMIN_KEY_NAME, { dryRun: false }).catch(() => undefined);
    await rm(`${keyPath}.${process.pid}.tmp`, { force: true });
    throw error;
  }
  logger.info({ keyPath, accessKey: BOOTSTRAP_ADMIN_KEY_NAME }, 'Created the bootstrap admin access key; it is in the file at keyPath (mode 0600)');
  return true;
}
