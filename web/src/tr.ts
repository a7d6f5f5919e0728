import { useLocale } from './i18n';

/** `t('Скринер', 'Screener')`: the text in the current locale; texts live beside the screens that use them. */
export function useTr(): (ru: string, en: string) => string {
  const locale = useLocale();
  return (ru, en) => (locale === 'ru' ? ru : en);
}
