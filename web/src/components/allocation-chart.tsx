import { ArcElement, Chart, DoughnutController, Legend, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';
import { useDarkTheme } from '../theme';

// Only the pieces a doughnut needs: Chart.js tree-shakes the rest away.
Chart.register(DoughnutController, ArcElement, Tooltip, Legend);

const COLOURS = ['#2457d6', '#16a34a', '#f59e0b', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#ea580c', '#475569'];

/** The portfolio's allocation by position (weights in percent); loaded only with the portfolio screen. */
export default function AllocationChart({ slices }: { slices: { label: string; weight: number }[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const dark = useDarkTheme();
  useEffect(() => {
    if (!canvas.current) return;
    const top = slices.slice(0, 9);
    const rest = slices.slice(9).reduce((s, x) => s + x.weight, 0);
    const data = rest > 0 ? [...top, { label: '…', weight: rest }] : top;
    const chart = new Chart(canvas.current, {
      type: 'doughnut',
      data: {
        labels: data.map((d) => d.label),
        datasets: [{ data: data.map((d) => Math.round(d.weight * 100) / 100), backgroundColor: COLOURS, borderWidth: 1 }],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: {
          legend: { position: 'right', labels: { color: dark ? '#e6e8eb' : '#1b1f24' } },
          tooltip: { callbacks: { label: (c) => ` ${c.label}: ${String(c.raw)} %` } },
        },
      },
    });
    return () => chart.destroy();
  }, [slices, dark]);
  return (
    <div style={{ position: 'relative', height: 240 }} data-testid="allocation-chart">
      <canvas ref={canvas} role="img" aria-label={slices.map((s) => `${s.label} ${s.weight.toFixed(1)}%`).join(', ')} />
    </div>
  );
}
