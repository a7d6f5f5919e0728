import { RequireSession } from '../components/require-session';

export default function Screen() {
  return (
    <RequireSession>
      <section className="panel" data-testid="chat">
        <h1>chat</h1>
      </section>
    </RequireSession>
  );
}
