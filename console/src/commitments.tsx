/**
 * The commitments page (`#/commitments`, docs/commitments.md): utilisation and coverage over time
 * by provider (day or week), the inventory with days left and unused cost, and the savings-plan
 * simulator's curve of net savings per level with the recommended level marked.
 */

import { useState } from 'preact/hooks';
import { PAYMENT_OPTIONS, SIMULATED_PROVIDERS, TERMS } from '../../shared/domain/commitments/simulation';
import { api } from './api';
import { Canvas } from './chart';
import {
  curveChart,
  type InventoryRow,
  inventoryRows,
  percent,
  rateChart,
  recommendation,
  type Simulation,
} from './commitments-shape';
import { describe, useAsync } from './hooks';
import { ErrorText, WordSelect } from './ui';
import { presetWords, sentenceCase } from './words';

const PERIODS = ['TRAILING_30_DAYS', 'TRAILING_90_DAYS', 'LAST_3_MONTHS', 'LAST_6_MONTHS'] as const;
const GRANULARITIES = ['DAY', 'WEEK'] as const;
const LOOKBACKS = ['7', '30', '60'] as const;
const RATES = [
  ['utilization', 'Utilisation'],
  ['coverage', 'Coverage'],
] as const;

export function Commitments() {
  const [period, setPeriod] = useState<string>('TRAILING_90_DAYS');
  const [granularity, setGranularity] = useState<string>('DAY');
  const summary = useAsync(() => api.commitmentSummary(period, granularity), [period, granularity], true);
  const inventory = useAsync(
    async () => {
      const [inv, exp] = await Promise.all([api.commitments(period), api.expiringCommitments()]);
      return { inv, today: exp.today };
    },
    [period],
    true,
  );
  return (
    <section class="commitments">
      <h1>Commitments</h1>
      <p>
        <a href="#/commitments/alerts">Expiring-commitment alerts</a>
      </p>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <WordSelect label="Period" value={period} codes={PERIODS} words={presetWords} onChange={setPeriod} />
        <WordSelect
          label="Step"
          value={granularity}
          codes={GRANULARITIES}
          words={sentenceCase}
          onChange={setGranularity}
        />
      </form>
      <div class="card">
        <h2>Utilisation and coverage by provider</h2>
        {summary.status === 'loading' && <p class="loading">Loading the summary…</p>}
        {summary.status === 'error' && <ErrorText message={summary.message} />}
        {summary.status === 'ok' &&
          (summary.value.rows.length === 0 ? (
            <p class="empty">No commitment or eligible usage in this period.</p>
          ) : (
            <>
              <p class="stamp total">
                {summary.value.period.startDate} to {summary.value.period.endDate} · utilisation{' '}
                {percent(summary.value.total.utilization)} · coverage {percent(summary.value.total.coverage)}
              </p>
              <div class="two">
                {RATES.map(([key, title]) => (
                  <div key={key}>
                    <h3>{title}</h3>
                    <Canvas
                      label={`${title} by provider`}
                      height={260}
                      option={rateChart(summary.value, key, title)}
                    />
                  </div>
                ))}
              </div>
            </>
          ))}
      </div>
      <div class="card table-wrap inventory-card">
        <h2>Inventory</h2>
        {inventory.status === 'loading' && <p class="loading">Loading the commitments…</p>}
        {inventory.status === 'error' && <ErrorText message={inventory.message} />}
        {inventory.status === 'ok' &&
          (inventory.value.inv.items.length === 0 ? (
            <p class="empty">No commitments in this period.</p>
          ) : (
            <InventoryTable
              rows={inventoryRows(inventory.value.inv, inventory.value.today)}
              currency={inventory.value.inv.currency}
            />
          ))}
      </div>
      <Simulator />
    </section>
  );
}

/** The inventory's columns: heading, field, and whether it is a figure (right-aligned). */
const COLUMNS: [string, Exclude<keyof InventoryRow, 'id' | 'soon'>, boolean][] = [
  ['Commitment', 'name', false],
  ['Provider', 'provider', false],
  ['Type', 'kind', false],
  ['Term', 'term', false],
  ['Ends', 'ends', false],
  ['Days left', 'daysLeft', false],
  ['Cost', 'cost', true],
  ['Used', 'used', true],
  ['Unused', 'unused', true],
  ['Utilisation', 'utilization', true],
  ['Savings', 'savings', true],
];

function InventoryTable({ rows, currency }: { rows: InventoryRow[]; currency: string }) {
  return (
    <table class="inventory stack">
      <caption>Figures in {currency}</caption>
      <thead>
        <tr>
          {COLUMNS.map(([h, , num]) => (
            <th key={h} scope="col" class={num ? 'num' : undefined}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id} data-id={r.id}>
            {COLUMNS.map(([h, k, num]) => (
              <td
                key={k}
                data-label={h}
                class={num ? 'num' : k === 'daysLeft' && r.soon ? 'over' : k === 'name' ? 'name' : undefined}
              >
                {r[k]}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Simulator() {
  const [provider, setProvider] = useState<string>('AWS');
  const [lookback, setLookback] = useState<string>('30');
  const [term, setTerm] = useState<string>('1yr');
  const [payment, setPayment] = useState<string>('No Upfront');
  const [state, setState] = useState<
    | { status: 'idle' }
    | { status: 'running' }
    | { status: 'ok'; sim: Simulation }
    | { status: 'error'; message: string }
  >({ status: 'idle' });
  const run = async (e: Event) => {
    e.preventDefault();
    setState({ status: 'running' });
    try {
      const sim = await api.simulate({
        provider,
        lookbackDays: Number(lookback),
        term,
        paymentOption: payment,
      });
      setState({ status: 'ok', sim });
    } catch (err) {
      setState({ status: 'error', message: describe(err) });
    }
  };
  return (
    <div class="card simulator">
      <h2>Savings plan simulator</h2>
      <form class="filters" onSubmit={run}>
        <WordSelect
          label="Provider"
          value={provider}
          codes={SIMULATED_PROVIDERS}
          words={(c) => c}
          onChange={setProvider}
        />
        <WordSelect
          label="Lookback"
          value={lookback}
          codes={LOOKBACKS}
          words={(c) => `Last ${c} days`}
          onChange={setLookback}
        />
        <WordSelect
          label="Term"
          value={term}
          codes={TERMS}
          words={(c) => (c === '1yr' ? '1 year' : '3 years')}
          onChange={setTerm}
        />
        <WordSelect
          label="Payment"
          value={payment}
          codes={PAYMENT_OPTIONS}
          words={(c) => c}
          onChange={setPayment}
        />
        <button type="submit" disabled={state.status === 'running'}>
          Simulate
        </button>
      </form>
      {state.status === 'running' && <p class="loading">Simulating…</p>}
      {state.status === 'error' && <ErrorText message={state.message} />}
      {state.status === 'ok' && (
        <>
          <p class="recommendation">{recommendation(state.sim)}</p>
          <p class="stamp">
            {state.sim.lookback.startDate} to {state.sim.lookback.endDate} · plan discount{' '}
            {percent(state.sim.rate.discount)} (
            {state.sim.rate.source === 'export' ? "the export's own" : 'given'})
          </p>
          <Canvas label="Net savings per hourly commitment" height={300} option={curveChart(state.sim)} />
        </>
      )}
    </div>
  );
}
