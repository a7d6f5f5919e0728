import type { z } from 'zod';
import { type VapidKeys, vapidKeysMatch } from './vapid-keys.js';

/** The web push part of the delivery configuration (`VAPID_*`, `WEB_PUSH_TEST_CA`). */
export interface PushConfig {
  /** From `VAPID_PUBLIC_KEY` / `VAPID_PRIVATE_KEY`. */
  vapid?: VapidKeys;
  /** `VAPID_SUBJECT`. */
  subject: string;
  /** Without keys: generate a pair once and keep it in `vapid_keys` (development, tests) or leave the channel off (production). */
  generateKeys: boolean;
  /** PEM of a CA to trust besides the system ones: the local push service's (development, tests; never production). */
  testCa?: string;
  /** Accept subscriptions whose endpoint is on this machine or a private network (development, tests). */
  allowPrivateEndpoints: boolean;
}

/** The contact outside production when VAPID_SUBJECT is unset (a reserved domain: nobody is there). */
export const DEVELOPMENT_VAPID_SUBJECT = 'mailto:dev@example.com';

/** What tests and `createDeliveryApp` without a configuration get: generated keys, private endpoints allowed. */
export const DEVELOPMENT_PUSH_CONFIG: PushConfig = { subject: DEVELOPMENT_VAPID_SUBJECT, generateKeys: true, allowPrivateEndpoints: true };

interface PushEnv {
  NODE_ENV: 'development' | 'test' | 'production';
  VAPID_PUBLIC_KEY?: string | undefined;
  VAPID_PRIVATE_KEY?: string | undefined;
  VAPID_SUBJECT?: string | undefined;
  WEB_PUSH_TEST_CA?: string | undefined;
}

/** What the push variables must say together (each one's own form is checked by its schema). */
export function checkPushEnv(env: PushEnv, ctx: z.RefinementCtx): void {
  const { VAPID_PUBLIC_KEY: pub, VAPID_PRIVATE_KEY: priv } = env;
  if (pub && !priv) ctx.addIssue({ code: 'custom', path: ['VAPID_PRIVATE_KEY'], message: 'VAPID_PRIVATE_KEY is required when VAPID_PUBLIC_KEY is set' });
  if (priv && !pub) ctx.addIssue({ code: 'custom', path: ['VAPID_PUBLIC_KEY'], message: 'VAPID_PUBLIC_KEY is required when VAPID_PRIVATE_KEY is set' });
  // Browsers subscribed with the public key; signing with another private key gets every message refused (403).
  if (pub && priv && !vapidKeysMatch({ publicKey: pub, privateKey: priv })) {
    ctx.addIssue({ code: 'custom', path: ['VAPID_PUBLIC_KEY'], message: 'VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY' });
  }
  if (env.NODE_ENV !== 'production') return;
  if (pub && priv && !env.VAPID_SUBJECT) {
    ctx.addIssue({ code: 'custom', path: ['VAPID_SUBJECT'], message: 'VAPID_SUBJECT is required in production when the VAPID keys are set' });
  }
  if (env.WEB_PUSH_TEST_CA) {
    ctx.addIssue({ code: 'custom', path: ['WEB_PUSH_TEST_CA'], message: 'WEB_PUSH_TEST_CA must not be set in production (it trusts the local push service)' });
  }
}

/** The push configuration of a checked environment: keys when both are set; generated ones outside production. */
export function pushConfigFrom(env: PushEnv): PushConfig {
  const production = env.NODE_ENV === 'production';
  return {
    ...(env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY ? { vapid: { publicKey: env.VAPID_PUBLIC_KEY, privateKey: env.VAPID_PRIVATE_KEY } } : {}),
    subject: env.VAPID_SUBJECT ?? DEVELOPMENT_VAPID_SUBJECT,
    generateKeys: !production,
    ...(env.WEB_PUSH_TEST_CA && !production ? { testCa: env.WEB_PUSH_TEST_CA } : {}),
    allowPrivateEndpoints: !production,
  };
}
