/**
 * The shipped Prometheus files, checked by promtool (Debian's prometheus package, installed when missing):
 * the scrape configuration and the alert rules parse, the rule tests of deploy/prometheus/tests pass (each rule
 * firing and not firing), and so does every query of the Grafana dashboard; both read only metrics the services
 * define. The Kubernetes manifests expose the metrics port the scrape annotations name.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePrometheus, GRAFANA_DASHBOARD, PROMETHEUS_DEPLOY_DIR, promtool } from '../support/prometheus.js';

const SERVICES = ['gateway', 'screener', 'portfolios', 'alerts', 'billing', 'delivery', 'chat'];
const ruleTests = readdirSync(join(PROMETHEUS_DEPLOY_DIR, 'tests')).filter((f) => f.endsWith('.yml'));

describe('deploy/prometheus under promtool', () => {
  let scratch: string;
  beforeAll(() => {
    ensurePrometheus();
    scratch = mkdtempSync(join(tmpdir(), 'invest-promtool-'));
  }, 900_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('checks the scrape configuration and the rule file it loads', () => {
    const r = promtool(['check', 'config', 'prometheus.yml'], PROMETHEUS_DEPLOY_DIR);
    expect(r.output).toContain('SUCCESS: prometheus.yml is valid prometheus config file syntax');
    expect(r.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(r.status, r.output).toBe(0);
  });

  it('scrapes every service and the gateway on the metrics port', () => {
    const config = readFileSync(join(PROMETHEUS_DEPLOY_DIR, 'prometheus.yml'), 'utf8');
    for (const s of SERVICES) expect(config).toContain(`- ${s}:9464`);
  });

  it('checks the alert rules', () => {
    const r = promtool(['check', 'rules', 'rules.yml'], PROMETHEUS_DEPLOY_DIR);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
  });

  it('passes the rule tests: each rule fires and stays quiet when it should', () => {
    expect(ruleTests.length).toBeGreaterThan(0);
    const r = promtool(['test', 'rules', ...ruleTests.map((f) => join('tests', f))], PROMETHEUS_DEPLOY_DIR);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
    // Every alert of the rule file has a test of its own.
    const rules = readFileSync(join(PROMETHEUS_DEPLOY_DIR, 'rules.yml'), 'utf8');
    const tests = ruleTests.map((f) => readFileSync(join(PROMETHEUS_DEPLOY_DIR, 'tests', f), 'utf8')).join('\n');
    const alertNames = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]!);
    expect(alertNames.length).toBeGreaterThanOrEqual(8);
    for (const name of alertNames) expect(tests, name).toContain(`alertname: ${name}`);
  });

  it('the rule tests fail when a threshold moves: they test the rules, not themselves', () => {
    const dir = join(scratch, 'moved');
    mkdirSync(join(dir, 'tests'), { recursive: true });
    const rules = readFileSync(join(PROMETHEUS_DEPLOY_DIR, 'rules.yml'), 'utf8');
    const moved = rules.replace('(invest_consumer_lag_seconds) > 60', '(invest_consumer_lag_seconds) > 90');
    expect(moved).not.toBe(rules);
    writeFileSync(join(dir, 'rules.yml'), moved);
    for (const f of ruleTests) copyFileSync(join(PROMETHEUS_DEPLOY_DIR, 'tests', f), join(dir, 'tests', f));
    const r = promtool(['test', 'rules', ...ruleTests.map((f) => join('tests', f))], dir);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('alertname: InvestConsumerLagging');
  });

  it('the Grafana dashboard has one row per service, and promtool parses each of its queries', () => {
    const dashboard = JSON.parse(readFileSync(GRAFANA_DASHBOARD, 'utf8')) as {
      panels: { type: string; title: string; targets?: { expr: string }[] }[];
    };
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows.sort()).toEqual([...SERVICES].sort());
    const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    expect(exprs.length).toBeGreaterThan(SERVICES.length);
    // Each query as a recording rule, with Grafana's $__rate_interval as a plain range, is parsed by promtool.
    const file = join(scratch, 'dashboard-queries.yml');
    const rules = exprs.map((e, i) => ({ record: `dashboard:query_${i}`, expr: e.replaceAll('$__rate_interval', '5m') }));
    writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
    const r = promtool(['check', 'rules', file]);
    expect(r.status, r.output).toBe(0);
    expect(r.output).toContain(`SUCCESS: ${exprs.length} rules found`);
  });

  it('reads only metrics the services define', () => {
    const read = ['prometheus/rules.yml', 'grafana/invest-dashboard.json'].map((f) => readFileSync(join(PROMETHEUS_DEPLOY_DIR, '..', f), 'utf8')).join('\n');
    const names = new Set([...read.matchAll(/\binvest_[a-z_]+/g)].map((m) => m[0].replace(/_bucket$/, '')));
    const root = join(PROMETHEUS_DEPLOY_DIR, '..', '..');
    const sources = ['platform/src', ...readdirSync(join(root, 'services')).map((s) => `services/${s}/src`)]
      .flatMap((dir) => (readdirSync(join(root, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => join(root, dir, f)))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const defined = new Set([...sources.matchAll(/'(invest_[a-z_]+)'/g)].map((m) => m[1]!));
    expect(names.size).toBeGreaterThan(15);
    expect([...names].filter((n) => !defined.has(n))).toEqual([]);
  });

  it('the Kubernetes pods expose the metrics port their scrape annotations name', () => {
    const manifests = readFileSync(join(PROMETHEUS_DEPLOY_DIR, '..', 'k8s', 'services.yaml'), 'utf8');
    const deployments = manifests.split(/^---$/m).filter((d) => /^kind: Deployment$/m.test(d));
    expect(deployments.length).toBe(SERVICES.length);
    expect(manifests).toMatch(/^ {2}METRICS_PORT: "9464"$/m);
    for (const d of deployments) {
      expect(d).toContain('annotations: { prometheus.io/scrape: "true", prometheus.io/port: "9464", prometheus.io/path: /metrics }');
      expect(d).toContain('{ name: metrics, containerPort: 9464 }');
    }
  });
});
