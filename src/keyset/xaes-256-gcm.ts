/**
 * XAES-256-GCM (c2sp.org/XAES-256-GCM): AES-256-GCM with a 192-bit nonce. Each message gets its own AES-256-GCM key,
 * derived from the first 12 bytes of its nonce by two AES-256 blocks (the NIST SP 800-108r1 counter-mode KDF with
 * CMAC), and the last 12 bytes as its GCM nonce. Random nonces of 24 bytes never repeat in practice, so one key
 * may seal any number of cursors, where plain AES-256-GCM with random 12-byte nonces is limited to 2^32 messages.
 * Built from node:crypto's AES only; checked against the specification's test vectors.
 */
import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';

/** Bytes of a nonce and of a tag. */
export const XAES_NONCE = 24;
export const XAES_TAG = 16;

/** One XAES-256-GCM key: seal and open messages under it. */
export interface XaesKey {
  /** Encrypt `plaintext` under `nonce` (24 bytes, never reused), authenticating `aad`: ciphertext then tag. */
  seal(nonce: Buffer, aad: Buffer, plaintext: Buffer): Buffer;
  /** Decrypt `sealed` (ciphertext then tag); undefined when it is not authentic under this key, nonce and `aad`. */
  open(nonce: Buffer, aad: Buffer, sealed: Buffer): Buffer | undefined;
}

/**
 * Prepare a 32-byte key. The AES-256 block cipher is kept (ECB, no padding, blocks only) to derive each message's
 * key in one call: node:crypto creates a cipher context per call otherwise, which costs more than the derivation.
 */
export function xaesKey(key: Uint8Array): XaesKey {
  if (key.length !== 32) throw new Error('listql: an XAES-256-GCM key has 32 bytes');
  const block = createCipheriv('aes-256-ecb', createSecretKey(key), null).setAutoPadding(false);
  const k1 = doubled(block.update(Buffer.alloc(16)));
  const derive = (nonce: Buffer): KeyObject => {
    if (nonce.length !== XAES_NONCE) throw new Error('listql: an XAES-256-GCM nonce has 24 bytes');
    const m = Buffer.alloc(32);
    for (const [at, counter] of [
      [0, 1],
      [16, 2],
    ] as const) {
      m[at + 1] = counter;
      m[at + 2] = 0x58; // 'X'
      nonce.copy(m, at + 4, 0, 12);
      for (let i = 0; i < 16; i++) m[at + i]! ^= k1[i]!;
    }
    return createSecretKey(block.update(m));
  };
  return {
    seal(nonce, aad, plaintext) {
      const cipher = createCipheriv('aes-256-gcm', derive(nonce), nonce.subarray(12), { authTagLength: XAES_TAG });
      cipher.setAAD(aad);
      return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    },
    open(nonce, aad, sealed) {
      if (sealed.length < XAES_TAG) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', derive(nonce), nonce.subarray(12), { authTagLength: XAES_TAG });
      decipher.setAAD(aad);
      decipher.setAuthTag(sealed.subarray(sealed.length - XAES_TAG));
      const plain = decipher.update(sealed.subarray(0, sealed.length - XAES_TAG));
      try {
        return Buffer.concat([plain, decipher.final()]);
      } catch {
        return undefined;
      }
    },
  };
}

/** CMAC's subkey K1: the block shifted left by one bit, reduced by the GF(2^128) polynomial when a bit falls off. */
function doubled(l: Buffer): Buffer {
  const out = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) out[i] = ((l[i]! << 1) | (i < 15 ? l[i + 1]! >>> 7 : 0)) & 0xff;
  if (l[0]! & 0x80) out[15]! ^= 0x87;
  return out;
}
