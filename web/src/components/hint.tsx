import { useId, useRef, useState } from 'react';
import { useTr } from '../tr';

/**
 * A "?" beside a figure's name that explains what the figure counts: shown on hover, on keyboard focus and on a tap
 * (phones have no hover). The tooltip is fixed to the viewport, so a scrolling table box does not clip it.
 */
export function Hint({ text, testId }: { text: string; testId?: string }) {
  const t = useTr();
  const id = useId();
  const ref = useRef<HTMLButtonElement>(null);
  const [at, setAt] = useState<{ left: number; top: number } | null>(null);
  const show = () => {
    const r = ref.current?.getBoundingClientRect();
    if (!r) return;
    const width = Math.min(280, window.innerWidth - 16);
    setAt({ left: Math.max(8, Math.min(r.left + r.width / 2 - width / 2, window.innerWidth - width - 8)), top: r.bottom + 6 });
  };
  const hide = () => setAt(null);
  return (
    <>
      <button
        type="button"
        ref={ref}
        className="hint"
        aria-label={t('Что это значит', 'What this means')}
        aria-describedby={id}
        data-testid={testId}
        onMouseEnter={show}
        onMouseLeave={hide}
        onFocus={show}
        onBlur={hide}
        // A tap shows it (hover and focus come first on a phone, so no toggling); a tap elsewhere blurs and hides it.
        onClick={(e) => {
          e.stopPropagation();
          show();
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') hide();
        }}
      >
        ?
      </button>
      <span id={id} role="tooltip" className="tooltip" hidden={!at} style={at ? { left: at.left, top: at.top } : undefined}>
        {text}
      </span>
    </>
  );
}
