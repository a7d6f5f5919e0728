import { useState } from 'react';
import { useLocale } from '../i18n';
import { relocaleDecimalText } from './number-input';

/**
 * A number field's text, kept in the UI language: when the language changes while the form is open, the text is
 * rewritten for the new one (relocaleDecimalText) so it is not read by the other language's rules on submit.
 */
export function useDecimalField(initial: string): [string, (text: string) => void] {
  const locale = useLocale();
  const [field, setField] = useState({ text: initial, locale });
  let current = field;
  if (field.locale !== locale) {
    // Derived from the language during render (React's pattern for state that follows a value).
    current = { text: relocaleDecimalText(field.text, field.locale, locale), locale };
    setField(current);
  }
  return [current.text, (text: string) => setField({ text, locale })];
}
