import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { Field, FormError } from '../components/form-bits';
import { nextPath } from '../next-path';
import { navigate, useRoute } from '../router';
import { signIn, useSession } from '../session';
import { useTr } from '../tr';

/**
 * Development sign-in: asks the gateway's development-only `/api/dev/token` for a token of any user id. In
 * production that route does not exist; tokens come from the identity provider (see web/README.md).
 */
export default function SignInScreen() {
  const t = useTr();
  const route = useRoute();
  const session = useSession();
  const [userId, setUserId] = useState(session?.userId ?? 'demo-user');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [devRoutes, setDevRoutes] = useState<boolean | null>(null);

  useEffect(() => {
    api.get('/api/client-config').then(
      (c) => setDevRoutes(c.data.dev_routes),
      () => setDevRoutes(true),
    );
  }, []);

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const { data } = await api.post('/api/dev/token', { body: { user_id: userId.trim() } });
      signIn({ token: data.token, userId: data.user_id, expiresAt: Date.now() + data.expires_in * 1000 });
      navigate(nextPath(route.search, location.origin));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel narrow" data-testid="sign-in">
      <h1>{t('Вход', 'Sign in')}</h1>
      {devRoutes === false ? (
        <p data-testid="sign-in-production">
          {t('Вход выполняется через провайдера удостоверений вашей организации.', "Sign in through your organisation's identity provider.")}
        </p>
      ) : (
        <form
          data-testid="sign-in-form"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <p className="muted">
            {t('Режим разработки: шлюз выдаёт токен для любого идентификатора пользователя.', 'Development mode: the gateway issues a token for any user id.')}
          </p>
          <Field label={t('Идентификатор пользователя', 'User id')} name="user_id" error={error}>
            <input data-testid="sign-in-user-id" value={userId} onChange={(e) => setUserId(e.target.value)} autoComplete="username" required maxLength={255} />
          </Field>
          <FormError error={error} fields={['user_id']} />
          <button type="submit" data-testid="sign-in-submit" disabled={busy}>
            {busy ? t('Вход…', 'Signing in…') : t('Войти', 'Sign in')}
          </button>
        </form>
      )}
    </section>
  );
}
