import { Component, type ReactNode } from 'react';
import { useTr } from '../tr';

/** A screen that throws while rendering shows this instead of a blank page; the rest of the app keeps working. */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: Error | null; key: string }> {
  override state = { error: null as Error | null, key: this.props.resetKey };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  static getDerivedStateFromProps(props: { resetKey: string }, state: { key: string; error: Error | null }) {
    // Navigating elsewhere clears the error.
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override render() {
    return this.state.error ? <ScreenError error={this.state.error} /> : this.props.children;
  }
}

/** What a failed screen says, in the UI locale; a chunk that no longer loads means a newer version is deployed. */
function ScreenError({ error }: { error: Error }) {
  const t = useTr();
  const chunk = /dynamically imported module|Importing a module script failed|Failed to fetch/i.test(error.message);
  return (
    <div className="panel error-panel" role="alert" data-testid="screen-error">
      <h2>{chunk ? t('Вышла новая версия', 'A newer version is available') : t('Что-то пошло не так', 'Something went wrong')}</h2>
      <p>{chunk ? t('Страница обновилась, пока была открыта. Перезагрузите её, чтобы продолжить.', 'This page was updated while it was open. Reload to continue.') : error.message}</p>
      <button type="button" onClick={() => location.reload()}>
        {t('Перезагрузить', 'Reload')}
      </button>
    </div>
  );
}
