/**
 * Key secrets and ids: a secret is `nlk_` + 40 lowercase hex,
 * shown once and stored only as its SHA-256 hash; hashes are compared in constant time.
 */
import crypto from 'node:crypto';

export const SECRET_PREFIX = 'nlk_';
const secretPattern = /^nlk_[0-9a-f]{40}$/;

/** A new key secret: 160 random bits. */
export function newSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(20).toString('hex');
}

/** The exact key format; anything else is refused before any lookup. */
export function isWellFormedSecret(text: unknown): text is string {
  return typeof text === 'string' && secretPattern.test(text);
}

/** The stored form of a secret. A plain hash is enough: the secret has 160 random bits. */
export function hashSecret(secret: string): Buffer {
  // One-shot hash: about 5× cheaper per request than createHash().update().digest().
  return crypto.hash('sha256', secret, 'buffer') as unknown as Buffer;
}

/** The stored form as hex text: one call, where a Buffer and its hex would be two. */
export function hashSecretHex(secret: string): string {
  return crypto.hash('sha256', secret, 'hex');
}

/** Constant-time equality of two hex hashes (a length mismatch is not secret: all are 64 digits). */
export function sameHashHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** A secret's character codes, kept to compare presented secrets with it (sameSecret). */
export function secretCodes(secret: string): Uint8Array {
  return Uint8Array.from(secret, (character) => character.charCodeAt(0));
}

/**
 * Constant-time equality of a presented secret and a known one given by its codes (all secrets
 * are 44 characters): about half the work of comparing two texts, on the path of every request.
 */
export function sameSecret(known: Uint8Array, presented: string): boolean {
  if (known.length !== presented.length) return false;
  let difference = 0;
  for (let i = 0; i < known.length; i++) difference |= known[i] ^ presented.charCodeAt(i);
  return difference === 0;
}

export type IdPrefix = 'acc' | 'key';

/** A short random id (64 bits) such as `acc_5f0c2a9e81d4b730`: not a counter, so not guessable. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${crypto.randomBytes(8).toString('hex')}`;
}
