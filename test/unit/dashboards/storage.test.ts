import { randomBytes } from 'node:crypto';
import { decodeSnapshot, encodeSnapshot, PART_BYTES } from '../../../shared/db/dashboards-repo';
import { realisticDashboard } from '../../fixtures/dashboards/realistic';

describe('dashboard version encoding', () => {
  it('round-trips a realistic 200-widget version in one compressed part', () => {
    const { expected } = realisticDashboard(200, 11);
    const json = JSON.stringify(expected);
    const encoded = encodeSnapshot(json);
    expect(encoded.jsonBytes).toBe(Buffer.byteLength(json));
    expect(encoded.storedBytes).toBeLessThan(encoded.jsonBytes / 5);
    expect(encoded.parts).toHaveLength(1);
    expect(decodeSnapshot(encoded.parts)).toEqual(expected);
  });

  it('cuts incompressible content into parts no larger than PART_BYTES, in order', () => {
    const value = { blob: randomBytes(900 * 1024).toString('base64') };
    const encoded = encodeSnapshot(JSON.stringify(value));
    expect(encoded.parts.length).toBeGreaterThanOrEqual(4);
    for (const part of encoded.parts) expect(part.byteLength).toBeLessThanOrEqual(PART_BYTES);
    expect(encoded.parts.reduce((n, p) => n + p.byteLength, 0)).toBe(encoded.storedBytes);
    expect(decodeSnapshot(encoded.parts)).toEqual(value);
    expect(() => decodeSnapshot([...encoded.parts].reverse())).toThrow();
  });

  it('honours a smaller part size', () => {
    const value = { list: Array.from({ length: 2000 }, (_, i) => `${i}-${randomBytes(8).toString('hex')}`) };
    const encoded = encodeSnapshot(JSON.stringify(value), 1000);
    expect(encoded.parts.length).toBeGreaterThan(10);
    expect(decodeSnapshot(encoded.parts)).toEqual(value);
  });
});
