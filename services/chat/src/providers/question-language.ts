/** The languages the chat answers in without a model (the app's UI languages). */
export type ChatLanguage = 'ru' | 'en';

/**
 * The language of a question, from its letters: more Cyrillic than Latin letters is Russian. Words written
 * wholly in Latin capitals or digits (tickers, ISINs: "SBER", "US0378331005") are left out, since a Russian
 * question names its shares in Latin. A question with no letters is Russian, the app's first language.
 */
export function questionLanguage(question: string): ChatLanguage {
  const words = question.split(/[^\p{L}\p{N}]+/u).filter((w) => w && !/^[A-Z0-9]+$/.test(w));
  let cyrillic = 0;
  let latin = 0;
  for (const w of words) {
    cyrillic += (w.match(/\p{Script=Cyrillic}/gu) ?? []).length;
    latin += (w.match(/\p{Script=Latin}/gu) ?? []).length;
  }
  return latin > cyrillic ? 'en' : 'ru';
}
