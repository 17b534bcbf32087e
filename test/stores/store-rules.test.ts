/** The store object's rules and object naming, per kind. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CredentialCipher } from '../../src/connectors/credential-cipher.ts';
import { credentialHint } from '../../src/connectors/credentials.ts';
import { checkStore, objectKey } from '../../src/stores/store-rules.ts';

const output = { name: 'photo.webp', contentType: 'image/webp' };

test('a path ending in / (or none) is a folder that gets the output name; otherwise it names the object', () => {
  assert.equal(objectKey('', 'photo.webp'), 'photo.webp');
  assert.equal(objectKey('exports/', 'photo.webp'), 'exports/photo.webp');
  assert.equal(objectKey('exports/cover.webp', 'photo.webp'), 'exports/cover.webp');
});

test('defaults per kind: public-read ACL (GCS publicRead, none for Azure), S3 class standard', () => {
  assert.equal(
    checkStore('s3', { id: 'c', bucket: 'out', region: 'eu-west-1' }, output).target?.acl,
    'public-read',
  );
  assert.equal(
    checkStore('s3', { id: 'c', bucket: 'out', region: 'eu-west-1' }, output).target?.storageClass,
    'STANDARD',
  );
  assert.equal(checkStore('gcs', { id: 'c', bucket: 'out' }, output).target?.acl, 'publicRead');
  assert.equal(checkStore('azure', { id: 'c', container: 'out' }, output).target?.acl, undefined);
  assert.equal(checkStore('r2', { id: 'c', bucket: 'out', acl: 'private' }, output).target?.acl, 'private');
});

test('every violation is an entry on its exact field', () => {
  const { errors } = checkStore(
    'gcs',
    {
      id: 'c',
      bucket: 'out',
      region: 'x',
      class: 'glacier',
      tags: { a: 'b' },
      headers: { Expires: 'x' },
      path: '/abs',
    },
    output,
  );
  assert.deepEqual(errors.map((e) => e.field).sort(), [
    'store.class',
    'store.headers.Expires',
    'store.path',
    'store.region',
    'store.tags',
  ]);
  assert.deepEqual(
    checkStore('s3', { id: 'c' }, output)
      .errors.map((e) => e.field)
      .sort(),
    ['store.bucket', 'store.region'],
  );
});

test('credentials are sealed per connector and never readable as another one', () => {
  const cipher = new CredentialCipher(Buffer.alloc(32, 7));
  const sealed = cipher.encrypt({ secretAccessKey: 'very secret' }, 'con_1:s3');
  assert.ok(!sealed.includes('very secret'));
  assert.deepEqual(cipher.decrypt(sealed, 'con_1:s3'), { secretAccessKey: 'very secret' });
  assert.throws(() => cipher.decrypt(sealed, 'con_2:s3'));
  assert.throws(() => new CredentialCipher(Buffer.alloc(32, 8)).decrypt(sealed, 'con_1:s3'));
  assert.equal(credentialHint('s3', { accessKeyId: 'AKIAIOSFODNN7EXAMPLE' }), 'AKIA…MPLE');
});
