import { RequireSession } from '../components/require-session';

export default function Screen() {
  return (
    <RequireSession>
      <section className="panel" data-testid="subscription">
        <h1>subscription</h1>
      </section>
    </RequireSession>
  );
}
