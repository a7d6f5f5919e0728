import { register } from 'prom-client';

/**
 * The current value of a metric of prom-client's default registry: the sum of its series whose labels include
 * `labels` (a histogram's `_count` or `_sum` through `series`). 0 when nothing was recorded yet. The registry is
 * the process's, shared by every app a test file starts: compare a value before and after the action.
 */
export async function metricValue(name: string, labels: Record<string, string> = {}, series: '' | '_count' | '_sum' = ''): Promise<number> {
  const metric = register.getSingleMetric(name);
  if (!metric) throw new Error(`No metric ${name} is registered.`);
  // Histograms and summaries name each series (`_bucket`, `_count`, `_sum`); counters and gauges do not.
  const { values } = (await metric.get()) as { values: { labels: Record<string, string | number>; value: number; metricName?: string }[] };
  const wanted = `${name}${series}`;
  return values
    .filter((v) => (v.metricName ?? name) === wanted && Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((sum, v) => sum + v.value, 0);
}
