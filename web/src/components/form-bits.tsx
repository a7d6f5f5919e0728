import type { ReactNode } from 'react';
import { ApiError, describeError } from '../api/api-error';
import { useLocale } from '../i18n';
import { Link } from './link';

/** The messages of a 422 for one field (or several names it may be reported under, e.g. `assetable.id`). */
export function fieldErrors(error: unknown, ...names: string[]): string[] {
  if (!(error instanceof ApiError)) return [];
  return names.flatMap((n) => Object.entries(error.fieldErrors).filter(([k]) => k === n || k.startsWith(`${n}.`)).flatMap(([, v]) => v));
}

/** A labelled field with its 422 messages right beside it. */
export function Field({ label, name, error, children }: { label: string; name: string; error: unknown; children: ReactNode }) {
  const messages = fieldErrors(error, name);
  return (
    <label className={`field${messages.length ? ' field-invalid' : ''}`}>
      <span className="field-label">{label}</span>
      {children}
      {messages.map((m) => (
        <span key={m} className="field-error" data-testid={`field-error-${name}`} role="alert">
          {m}
        </span>
      ))}
    </label>
  );
}

/**
 * The message of an error that is not shown beside a field: 401/403/409/429/503, no connection, or a 422 about a
 * field the form does not show (`fields`: the names the form shows beside their inputs).
 */
export function FormError({ error, fields = [], testId = 'form-error' }: { error: unknown; fields?: string[]; testId?: string }) {
  const locale = useLocale();
  if (!error) return null;
  let text = describeError(error, locale);
  if (error instanceof ApiError && error.kind === 'validation' && Object.keys(error.fieldErrors).length) {
    const rest = Object.entries(error.fieldErrors).filter(([k]) => !fields.some((f) => k === f || k.startsWith(`${f}.`)));
    if (!rest.length) return null;
    text = rest.flatMap(([, v]) => v).join(' ');
  }
  const plans = error instanceof ApiError && (error.kind === 'plan_required' || error.kind === 'rate_limited');
  return (
    <p className="form-error" role="alert" data-testid={testId}>
      {text}
      {plans && (
        <>
          {' '}
          <Link to="/subscription" data-testid="plans-link">
            {locale === 'ru' ? 'Тарифы' : 'See plans'}
          </Link>
        </>
      )}
    </p>
  );
}
