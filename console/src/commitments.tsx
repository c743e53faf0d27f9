/**
 * The commitments page (`#/commitments`, docs/commitments.md): utilisation and coverage over time
 * by provider (day or week), the inventory with days left and unused cost, and the savings-plan
 * simulator's curve of net savings per level with the recommended level marked.
 */
import { useState } from 'preact/hooks';
import { PAYMENT_OPTIONS, TERMS } from '../../shared/domain/commitments/simulation';
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
/** The providers the simulator knows (docs/commitments.md "Simulator"). */
const SIM_PROVIDERS = ['AWS', 'Microsoft'] as const;
const LOOKBACKS = ['7', '30', '60'] as const;

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
                <div>
                  <h3>Utilisation</h3>
                  <Canvas
                    label="Utilisation by provider"
                    height={260}
                    option={rateChart(summary.value, 'utilization', 'Utilisation')}
                  />
                </div>
                <div>
                  <h3>Coverage</h3>
                  <Canvas
                    label="Coverage by provider"
                    height={260}
                    option={rateChart(summary.value, 'coverage', 'Coverage')}
                  />
                </div>
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

function InventoryTable({ rows, currency }: { rows: InventoryRow[]; currency: string }) {
  const heads = ['Commitment', 'Provider', 'Type', 'Term', 'Ends', 'Days left'];
  const money = ['Cost', 'Used', 'Unused', 'Utilisation', 'Savings'];
  return (
    <table class="inventory stack">
      <caption>Figures in {currency}</caption>
      <thead>
        <tr>
          {heads.map((h) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
          {money.map((h) => (
            <th key={h} scope="col" class="num">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id} data-id={r.id}>
            <td data-label="Commitment" class="name">
              {r.name}
            </td>
            <td data-label="Provider">{r.provider}</td>
            <td data-label="Type">{r.kind}</td>
            <td data-label="Term">{r.term}</td>
            <td data-label="Ends">{r.ends}</td>
            <td data-label="Days left" class={r.soon ? 'over' : undefined}>
              {r.daysLeft}
            </td>
            <td data-label="Cost" class="num">
              {r.cost}
            </td>
            <td data-label="Used" class="num">
              {r.used}
            </td>
            <td data-label="Unused" class="num">
              {r.unused}
            </td>
            <td data-label="Utilisation" class="num">
              {r.utilization}
            </td>
            <td data-label="Savings" class="num">
              {r.savings}
            </td>
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
          codes={SIM_PROVIDERS}
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
