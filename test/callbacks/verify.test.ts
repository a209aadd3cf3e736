import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyCallbackSignature } from '../../src/verify.js';

describe('verifyCallbackSignature', () => {
  const key = 'esim_test-key';
  const body = '{"iccid":"8944000000000000014","alertType":"Utilisation","bundle":{"name":"é"}}';
  const signature = createHmac('sha256', key).update(Buffer.from(body, 'utf8')).digest('base64');

  it('accepts the base64 HMAC-SHA256 of the raw body, as a string or as bytes', () => {
    assert.equal(verifyCallbackSignature(body, signature, key), true);
    assert.equal(verifyCallbackSignature(Buffer.from(body, 'utf8'), signature, key), true);
  });

  it('refuses another key, a changed body, a re-serialised body and junk', () => {
    assert.equal(verifyCallbackSignature(body, signature, 'esim_other-key'), false);
    assert.equal(
      verifyCallbackSignature(body.replace('Utilisation', 'FirstUse'), signature, key),
      false,
    );
    assert.equal(
      verifyCallbackSignature(JSON.stringify(JSON.parse(body), null, 1), signature, key),
      false,
    );
    assert.equal(verifyCallbackSignature(body, '', key), false);
    assert.equal(verifyCallbackSignature(body, 'not base64 at all', key), false);
    assert.equal(verifyCallbackSignature(body, signature, ''), false);
  });
});
