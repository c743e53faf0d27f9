import { type Bundle, bundlesManifest, topLevelDuckDb } from './bundles';
import { round } from './units';

// The foundation's targets (issue 26 §4), each with its worst figure and pass/fail.

const SIZE_FACTOR = 1.25;
/** Workers and schedules: bytes loaded at import vs the floor (issue 26 §4). */
const JOB_SIZE_FACTOR = 2;
const IMPORT_FACTOR = 1.25;
const MAX_P99_RATIO = 2;

export interface Target {
  name: string;
  target: string;
  worst: number;
  pass: boolean;
  failing: string[];
}

export interface TargetInputs {
  floor: Bundle;
  bundles: Bundle[];
  imports: Map<string, { medianMs: number }>;
  floorImport: number;
  p99Ratio: number;
}

/** Every target over the measured bundles, import times and load figures. */
export function targetsOf({ floor, bundles, imports, floorImport, p99Ratio }: TargetInputs): Target[] {
  const httpFns = bundles.filter((b) => b.kind === 'http');
  const jobFns = bundles.filter((b) => b.kind === 'worker' || b.kind === 'schedule');
  const over = (limit: number, value: (b: Bundle) => number, fns = httpFns) =>
    fns.filter((b) => value(b) > limit).map((b) => `${b.name} ${round(value(b))}x`);
  const sizeOf = (b: Bundle) => b.bytes / floor.bytes;
  const importOf = (b: Bundle) => (imports.get(b.name)?.medianMs ?? 0) / floorImport;
  const sizeRatio = round(Math.max(...httpFns.map(sizeOf)));
  const importRatio = round(Math.max(...httpFns.map(importOf)));
  const jobSizeRatio = round(Math.max(...jobFns.map(sizeOf)));
  const manifestIn = bundles.filter(bundlesManifest).map((b) => b.name);
  const duckDbAtTop = httpFns.filter(topLevelDuckDb).map((b) => b.name);
  return [
    {
      name: 'bundle size of every HTTP function vs the floor',
      target: `<= ${SIZE_FACTOR}x`,
      worst: sizeRatio,
      pass: sizeRatio <= SIZE_FACTOR,
      failing: over(SIZE_FACTOR, sizeOf),
    },
    {
      name: 'fresh import time (median) of every HTTP function vs the floor',
      target: `<= ${IMPORT_FACTOR}x`,
      worst: importRatio,
      pass: importRatio <= IMPORT_FACTOR,
      failing: over(IMPORT_FACTOR, importOf),
    },
    {
      name: 'p99 of GET /reports/{id} on the local stack vs the bare node:http GetItem',
      target: `<= ${MAX_P99_RATIO}x`,
      worst: p99Ratio,
      pass: p99Ratio <= MAX_P99_RATIO,
      failing: [],
    },
    {
      name: 'no HTTP function imports DuckDB at the top of its bundle (only lazily, where a database opens)',
      target: 'none',
      worst: duckDbAtTop.length,
      pass: duckDbAtTop.length === 0,
      failing: duckDbAtTop,
    },
    {
      name: 'bundle size of every worker and schedule vs the floor',
      target: `<= ${JOB_SIZE_FACTOR}x`,
      worst: jobSizeRatio,
      pass: jobSizeRatio <= JOB_SIZE_FACTOR,
      failing: over(JOB_SIZE_FACTOR, sizeOf, jobFns),
    },
    {
      name: 'no function bundles the route manifest (shared/routes.ts)',
      target: 'none',
      worst: manifestIn.length,
      pass: manifestIn.length === 0,
      failing: manifestIn,
    },
  ];
}
