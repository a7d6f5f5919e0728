import type { ChargeFailedV1, Locale } from '@invest/contracts';

/** The web client's subscription screen, where a notice about a charge links to. */
export const SUBSCRIPTION_PATH = '/subscription';

/** An account notice as the inbox stores it: what it tells (unique per user) and its texts in every locale. */
export interface AccountNotice {
  userId: string;
  type: 'charge-failed';
  /** `charge-failed:<TransactionId>`: one notice per declined charge, however often billing's event arrives. */
  stepKey: string;
  texts: Record<Locale, { title: string; body: string }>;
  path: string;
}

const TITLES: Record<Locale, string> = { ru: 'Не удалось оплатить подписку', en: 'Subscription payment failed' };
const INTL_LOCALES: Record<Locale, string> = { ru: 'ru-RU', en: 'en-GB' };

function money(amount: string, currency: string, locale: Locale): string {
  try {
    // A decimal string keeps every digit (Intl formats strings exactly).
    return new Intl.NumberFormat(INTL_LOCALES[locale], { style: 'currency', currency }).format(amount as Intl.StringNumericLiteral);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** "1 декабря 2026 г. в 15:00 GMT+3": the zone is written out, since the user's own one is not known here. */
function when(iso: string, timeZone: string, locale: Locale): string {
  return new Intl.DateTimeFormat(INTL_LOCALES[locale], { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(new Date(iso));
}

function body(e: ChargeFailedV1, timeZone: string, locale: Locale): string {
  const amount = money(e.amount, e.currency, locale);
  const until = e.graceUntil === null ? null : when(e.graceUntil, timeZone, locale);
  if (locale === 'ru') {
    const attempts = e.attemptsLeft > 0 ? `Осталось попыток списания: ${e.attemptsLeft}.` : 'Попыток списания больше не будет.';
    const access = until === null ? '' : ` Доступ сохраняется до ${until}.`;
    const action = e.attemptsLeft > 0 ? ' Проверьте карту на странице подписки.' : ' Оплатите подписку заново на странице подписки.';
    return `Списание ${amount} за подписку не прошло. ${attempts}${access}${action}`;
  }
  const attempts = e.attemptsLeft > 0 ? `Attempts left: ${e.attemptsLeft}.` : 'No more attempts will be made.';
  const access = until === null ? '' : ` Access is kept until ${until}.`;
  const action = e.attemptsLeft > 0 ? ' Check your card on the subscription page.' : ' Pay for the subscription again on the subscription page.';
  return `The subscription charge of ${amount} was declined. ${attempts}${access}${action}`;
}

/**
 * The inbox notice of a declined charge: that it failed, how many more tries the provider makes, and until when
 * access is kept (the grace end, in `timeZone`, the market's). None for a charge of no subscription (a declined
 * first payment: the user is at the checkout, which says so).
 */
export function chargeFailedNotice(e: ChargeFailedV1, timeZone: string): AccountNotice | null {
  if (e.subscriptionId === null) return null;
  return {
    userId: e.userId,
    type: 'charge-failed',
    stepKey: `charge-failed:${e.paymentId}`,
    texts: {
      ru: { title: TITLES.ru, body: body(e, timeZone, 'ru') },
      en: { title: TITLES.en, body: body(e, timeZone, 'en') },
    },
    path: SUBSCRIPTION_PATH,
  };
}
