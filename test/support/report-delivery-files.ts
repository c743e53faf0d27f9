import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/**
 * Real files for the delivery tests, built here rather than read from fixtures: a valid PNG (RGB,
 * zlib-compressed scanlines, CRC-checked chunks) and a minimal valid PDF (one page, a text line,
 * a correct cross-reference table).
 */
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A width × height PNG filled with one colour, or with random pixels (incompressible) when `noise`. */
export function tinyPng(
  width = 4,
  height = 3,
  rgb: [number, number, number] = [200, 30, 60],
  noise = false,
): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const raw = Buffer.concat(
    Array.from({ length: height }, () =>
      noise ? Buffer.concat([Buffer.from([0]), randomBytes(width * 3)]) : row,
    ),
  );
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** A one-page PDF that says `text`. */
export function tinyPdf(text = 'Report'): Uint8Array {
  const stream = `BT /F1 18 Tf 40 100 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

/** True when the bytes are a PNG whose chunks all carry correct CRCs and which ends with IEND. */
export function isValidPng(bytes: Uint8Array): boolean {
  const b = Buffer.from(bytes);
  if (!b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return false;
  let at = 8;
  let last = '';
  while (at + 12 <= b.length) {
    const len = b.readUInt32BE(at);
    const body = b.subarray(at + 4, at + 8 + len);
    if (crc32(body) !== b.readUInt32BE(at + 8 + len)) return false;
    last = body.subarray(0, 4).toString('ascii');
    at += 12 + len;
  }
  return at === b.length && last === 'IEND';
}

/** True when the bytes start as a PDF and end with its end-of-file marker. */
export function isPdf(bytes: Uint8Array): boolean {
  const s = Buffer.from(bytes).toString('latin1');
  return s.startsWith('%PDF-') && s.trimEnd().endsWith('%%EOF');
}
