import type { Answer } from '../api/client';
import type { Locale } from '../format/number-format';
import { pluralForm } from '../format/plural';

/** What `GET /api/notifications` says beside the list: active notifications and the plan's limit (null: none). */
export type ActiveNotifications = NonNullable<Answer<'/api/notifications', 'get'>['active_notifications']>;

/**
 * The plan's limit on active notifications, shown before a create or a switch-on runs into it: «2 из 3 активных
 * уведомлений на бесплатном тарифе», and at the limit what to do. Nothing when the plan has no limit.
 */
export function activeLimitText(active: ActiveNotifications | undefined, locale: Locale): string | null {
  if (!active || active.limit === null) return null;
  const { count, limit, paid } = active;
  const full = count >= limit;
  if (locale === 'ru') {
    // After «из N» the noun is genitive: «из 1 активного уведомления», «из 3 активных уведомлений».
    const noun = pluralForm('ru', limit, { one: 'активного уведомления', other: 'активных уведомлений' });
    const text = `${count} из ${limit} ${noun} на ${paid ? 'вашем' : 'бесплатном'} тарифе.`;
    return full ? `${text} Чтобы включить ещё одно, выключите другое${paid ? '' : ' или перейдите на платный тариф'}.` : text;
  }
  const text = `${count} of ${limit} active ${pluralForm('en', limit, { one: 'alert', other: 'alerts' })} on ${paid ? 'your' : 'the free'} plan.`;
  return full ? `${text} To switch on another, switch one off${paid ? '' : ' or choose a paid plan'}.` : text;
}
