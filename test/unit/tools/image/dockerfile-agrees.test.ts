import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CMD, ENTRYPOINT, EXPOSED_PORTS, IMAGE_GID, IMAGE_UID, NODE_RUNTIME } from '../../../../tools/image/image-inputs.mjs';
import { REPO_ROOT } from '../../../support/vcsync-cli.js';

/** The Dockerfile (for teams with an engine) describes the image `npm run image` assembles. */
describe('Dockerfile and tools/image agree', () => {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const instruction = (name: string): string[] => [...dockerfile.matchAll(new RegExp(`^${name}\\s+(.+)$`, 'gm'))].map((match) => match[1]!.trim());

  it('pins the same Node.js version', () => {
    expect(instruction('ARG')).toContain(`NODE_VERSION=${NODE_RUNTIME.version}`);
  });

  it('starts the same way, as the same numeric user', () => {
    expect(instruction('ENTRYPOINT').map((value) => JSON.parse(value))).toEqual([ENTRYPOINT]);
    expect(instruction('CMD').map((value) => JSON.parse(value))).toEqual([CMD]);
    expect(instruction('USER')).toEqual([`${IMAGE_UID}:${IMAGE_GID}`]);
    expect(instruction('EXPOSE')).toEqual([EXPOSED_PORTS.map((port) => port.replace('/tcp', '')).join(' ')]);
    expect(instruction('WORKDIR')).toContain('/app');
  });
});
