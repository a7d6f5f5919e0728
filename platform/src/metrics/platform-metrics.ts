import { counter, gauge, histogram } from './metrics.js';

/**
 * The metrics of the platform's building blocks, created on first use in prom-client's default registry.
 * Labels name patterns (route, subject without the bus prefix, durable consumer), never raw URLs or ids.
 */

/** Request latencies: fast NATS round trips up to slow HTTP pages. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpMetrics = () => ({
  requests: counter('invest_http_requests_total', 'HTTP requests answered, by route pattern and status.', ['method', 'route', 'status']),
  duration: histogram('invest_http_request_duration_seconds', 'HTTP request latency, by route pattern and status.', ['method', 'route', 'status'], LATENCY_BUCKETS),
});

export const rpcMetrics = () => ({
  requests: counter('invest_rpc_requests_total', 'NATS requests handled, by subject and outcome (ok or the error code).', ['subject', 'outcome']),
  duration: histogram('invest_rpc_request_duration_seconds', 'NATS request handling time, by subject and outcome.', ['subject', 'outcome'], LATENCY_BUCKETS),
});

const CONSUMER = ['stream', 'consumer'] as const;
export const consumerMetrics = () => ({
  lagMessages: gauge('invest_consumer_lag_messages', 'Messages of a durable consumer not yet acknowledged (pending + ack pending).', CONSUMER),
  lagSeconds: gauge('invest_consumer_lag_seconds', 'Age of the oldest event a durable consumer has not processed yet (0 when none).', CONSUMER),
  lastProcessed: gauge('invest_consumer_last_processed_timestamp_seconds', 'When a durable consumer last finished a message.', CONSUMER),
  redeliveries: counter('invest_consumer_redeliveries_total', 'Messages received again after an earlier delivery.', CONSUMER),
  deadLetters: counter('invest_consumer_dead_letters_total', 'Messages written to es_dead_letters.', CONSUMER),
});

export const outboxMetrics = () => ({
  depth: gauge('invest_outbox_depth', 'Stored events the relay has not published yet.'),
  oldestAge: gauge('invest_outbox_oldest_age_seconds', 'Age of the oldest stored event the relay has not published yet (0 when none).'),
});

export const jobMetrics = () => ({
  lastSuccess: gauge('invest_job_last_success_timestamp_seconds', 'When a job last finished without error.', ['job']),
  interval: gauge('invest_job_interval_seconds', "A scheduled job's interval (a daily job: 86400).", ['job']),
  duration: histogram('invest_job_duration_seconds', 'How long a job run took, successful or not.', ['job'], [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 900]),
  failures: counter('invest_job_failures_total', 'Job runs that failed.', ['job']),
});
