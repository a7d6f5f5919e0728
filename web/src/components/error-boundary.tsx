import { Component, type ReactNode } from 'react';

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
    if (!this.state.error) return this.props.children;
    const chunk = /dynamically imported module|Importing a module script failed|Failed to fetch/i.test(this.state.error.message);
    return (
      <div className="panel error-panel" role="alert" data-testid="screen-error">
        <h2>{chunk ? 'A newer version is available' : 'Something went wrong'}</h2>
        <p>{chunk ? 'This page was updated while it was open. Reload to continue.' : this.state.error.message}</p>
        <button type="button" onClick={() => location.reload()}>
          Reload
        </button>
      </div>
    );
  }
}
