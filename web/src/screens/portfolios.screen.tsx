import { RequireSession } from '../components/require-session';

export default function Screen() {
  return (
    <RequireSession>
      <section className="panel" data-testid="portfolios">
        <h1>portfolios</h1>
      </section>
    </RequireSession>
  );
}
