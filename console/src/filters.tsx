/** The explorer's dimension picker and one filter row (dimension, operator, values). */
import type { DimensionEntry } from './api';
import { type ExplorerFilter, LIST_OPERATORS, NO_VALUE_OPERATORS } from './shape';

export function DimensionSelect(p: {
  id?: string;
  label?: string;
  dims: DimensionEntry[];
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <select
      id={p.id}
      aria-label={p.label}
      value={p.value}
      onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}
    >
      <option value="">(none)</option>
      {p.dims.map((d) => (
        <option key={d.name} value={d.name}>
          {d.label}
        </option>
      ))}
    </select>
  );
}

export function FilterRow(p: {
  dims: DimensionEntry[];
  filter: ExplorerFilter;
  onChange: (f: ExplorerFilter) => void;
  onRemove: () => void;
}) {
  const dim = p.dims.find((d) => d.name === p.filter.field);
  const f = p.filter;
  return (
    <div class="filter">
      <DimensionSelect
        dims={p.dims}
        value={f.field}
        onChange={(field) => p.onChange({ ...f, field, values: [] })}
      />
      <select
        aria-label="Operator"
        value={f.operator}
        onChange={(e) => p.onChange({ ...f, operator: (e.target as HTMLSelectElement).value, values: [] })}
      >
        {(dim?.operators ?? [{ name: 'in', value: 'in', label: 'is any of' }]).map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {LIST_OPERATORS.has(f.operator) ? (
        <select
          aria-label="Values"
          multiple
          size={Math.min(4, Math.max(2, dim?.values.length ?? 2))}
          onChange={(e) =>
            p.onChange({
              ...f,
              values: [...(e.target as HTMLSelectElement).selectedOptions].map((o) => o.value),
            })
          }
        >
          {(dim?.values ?? []).map((v) => (
            <option key={v.name} value={v.name} selected={f.values.includes(v.name)}>
              {v.label} ({(v.proportionCostAllocated * 100).toFixed(1)}%)
            </option>
          ))}
        </select>
      ) : NO_VALUE_OPERATORS.has(f.operator) ? null : (
        <input
          aria-label="Value"
          value={f.values[0] ?? ''}
          onChange={(e) => p.onChange({ ...f, values: [(e.target as HTMLInputElement).value] })}
        />
      )}
      <button type="button" class="link" onClick={p.onRemove}>
        Remove
      </button>
    </div>
  );
}
