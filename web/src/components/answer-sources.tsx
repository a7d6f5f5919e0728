import { useTr } from '../tr';

/** One source of an answer: a tool call whose result the assistant read (the chat service's `sources`). */
export interface AnswerSource {
  tool: string;
  arguments: Record<string, unknown>;
  label: string;
}

/** The label in the reader's language; a tool this page does not know keeps the server's (English) label. */
function labelOf(s: AnswerSource, t: (ru: string, en: string) => string): string {
  const a = s.arguments;
  const id = String(a.portfolio_id ?? '');
  const ticker = String(a.ticker ?? '');
  switch (s.tool) {
    case 'list_portfolios':
      return t('Портфели', 'Portfolios');
    case 'get_holdings':
      return t(`Позиции портфеля ${id}`, `Holdings of portfolio ${id}`);
    case 'get_portfolio_statistics':
      return t(`Статистика портфеля ${id}`, `Statistics of portfolio ${id}`);
    case 'get_asset':
      return t(`${ticker}: курс`, `${ticker}: rate`);
    case 'get_price_history':
      return t(`${ticker}: цены закрытия за ${String(a.days ?? '')} дн.`, `${ticker}: closes, ${String(a.days ?? '')} days`);
    case 'get_dividends':
      return t(`${ticker}: дивиденды`, `${ticker}: dividends`);
    case 'list_alerts':
      return t('Оповещения', 'Alerts');
    default:
      return s.label;
  }
}

/** «Источники» under an answer: the data the assistant read for it (nothing when it read none). */
export function AnswerSources({ sources }: { sources: readonly AnswerSource[] | undefined }) {
  const t = useTr();
  if (!sources?.length) return null;
  // The same call twice (a model asking again) is one source.
  const seen = new Set<string>();
  const unique = sources.filter((s) => {
    const key = `${s.tool}:${JSON.stringify(s.arguments)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return (
    <div className="small muted" data-testid="chat-sources">
      {t('Источники', 'Sources')}:
      <ul>
        {unique.map((s) => (
          <li key={`${s.tool}:${JSON.stringify(s.arguments)}`} data-testid="chat-source" data-tool={s.tool}>
            {labelOf(s, t)}
          </li>
        ))}
      </ul>
    </div>
  );
}
