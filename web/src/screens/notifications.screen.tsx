import { RequireSession } from '../components/require-session';

export default function Screen() {
  return (
    <RequireSession>
      <section className="panel" data-testid="notifications">
        <h1>notifications</h1>
      </section>
    </RequireSession>
  );
}
