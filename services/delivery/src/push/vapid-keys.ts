import { createECDH } from 'node:crypto';
import type { SqlClient } from '@invest/platform';
import webpush from 'web-push';

/** The application server's VAPID key pair (RFC 8292), base64url as `web-push generate-vapid-keys` prints it. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

function base64url(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  return Buffer.from(value, 'base64url');
}

/** A P-256 public key in uncompressed form: 65 bytes, the first 0x04 (what `applicationServerKey` and `p256dh` are). */
export function isP256PublicKey(value: string): boolean {
  const bytes = base64url(value);
  return bytes !== undefined && bytes.length === 65 && bytes[0] === 0x04;
}

/** A P-256 private key: 32 bytes. */
export function isP256PrivateKey(value: string): boolean {
  return base64url(value)?.length === 32;
}

/** Whether the public key is the one of the private key (a pasted pair from two generations would orphan every subscription). */
export function vapidKeysMatch(keys: VapidKeys): boolean {
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(keys.privateKey, 'base64url'));
    return ecdh.getPublicKey('base64url') === keys.publicKey;
  } catch {
    return false;
  }
}

/** `mailto:` or `https:`, what push services accept as the VAPID `sub` claim. */
export function isVapidSubject(value: string): boolean {
  return /^mailto:[^@\s]+@[^@\s]+$/.test(value) || /^https:\/\/[^\s/]+/.test(value);
}

/**
 * The development key pair: generated once by the first instance that needs it and kept in `vapid_keys`, so a
 * restart keeps the subscriptions browsers made with it (a new key orphans every one of them).
 */
export async function developmentVapidKeys(db: SqlClient): Promise<VapidKeys> {
  const fresh = webpush.generateVAPIDKeys();
  // Two instances starting together: the first insert wins and both read it back.
  await db.query('insert into vapid_keys (id, public_key, private_key) values (1, $1, $2) on conflict (id) do nothing', [fresh.publicKey, fresh.privateKey]);
  const [row] = await db.query<{ public_key: string; private_key: string }>('select public_key, private_key from vapid_keys where id = 1');
  if (!row) throw new Error('vapid_keys has no row after inserting one');
  return { publicKey: row.public_key, privateKey: row.private_key };
}
