import { describe, expect, it } from 'vitest';
import { newlyBlockingOwnerReferences } from '../../../src/apiserver/owner-reference-permission.js';

const ref = (uid: string, blockOwnerDeletion?: boolean): Record<string, unknown> => ({
  apiVersion: 'example.vcsync.io/v1',
  kind: 'Gadget',
  name: `owner-${uid}`,
  uid,
  ...(blockOwnerDeletion !== undefined ? { blockOwnerDeletion } : {}),
});
const withRefs = (...ownerReferences: Array<Record<string, unknown>>): Record<string, unknown> => Object.freeze({ metadata: Object.freeze({ name: 'dependent', ownerReferences }) });

describe('newlyBlockingOwnerReferences (what OwnerReferencesPermissionEnforcement asks about)', () => {
  it.each([
    ['a create with blocking and non-blocking references', withRefs(ref('1', true), ref('2', false), ref('3')), undefined, ['1']],
    ['an update that keeps a blocking reference', withRefs(ref('1', true)), withRefs(ref('1', true)), []],
    ['an update that switches a reference from false or unset to blocking', withRefs(ref('1', true), ref('2', true)), withRefs(ref('1', false), ref('2')), ['1', '2']],
    ['an update that adds a blocking reference beside a kept one', withRefs(ref('1', true), ref('4', true)), withRefs(ref('1', true)), ['4']],
    ['an update that stops blocking', withRefs(ref('1', false)), withRefs(ref('1', true)), []],
    ['an object without references', { metadata: { name: 'x' } }, undefined, []],
  ])('%s', (_case, object, old, uids) => {
    expect(newlyBlockingOwnerReferences(object, old).map((reference) => reference.uid)).toEqual(uids);
  });
});
