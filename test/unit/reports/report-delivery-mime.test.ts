import { simpleParser } from 'mailparser';
import { type Attachment, composeEmail, HeaderInjectionError } from '../../../shared/notify/email';
import { isPdf, isValidPng, tinyPdf, tinyPng } from '../../support/report-delivery-files';

const base = {
  from: 'FinOps <finops@example.com>',
  to: ['a@example.com'],
  subject: 'Weekly spend',
  text: 'Total $10',
};

describe('composeEmail with attachments (parsed back with mailparser)', () => {
  const png = tinyPng(5, 4);
  const pdf = tinyPdf('Dashboard');
  const attachments: Attachment[] = [
    { filename: 'chart-1.png', contentType: 'image/png', content: png, inline: true },
    { filename: 'dashboard.pdf', contentType: 'application/pdf', content: pdf, inline: false },
  ];

  it('puts the PNG inline under its filename as Content-ID and attaches the PDF, bytes intact', async () => {
    const raw = await composeEmail({
      ...base,
      html: '<html><body><p>Chart</p><img src="cid:chart-1.png" alt="c"></body></html>',
      attachments,
    });
    const mail = await simpleParser(raw, { skipImageLinks: true });
    expect(mail.subject).toBe('Weekly spend');
    expect(mail.text?.trim()).toBe('Total $10');
    expect(mail.attachments).toHaveLength(2);
    const [image, file] = mail.attachments;
    expect(image).toMatchObject({
      filename: 'chart-1.png',
      contentType: 'image/png',
      contentDisposition: 'inline',
      cid: 'chart-1.png',
      related: true,
    });
    expect(Buffer.compare(image!.content, Buffer.from(png))).toBe(0);
    expect(isValidPng(image!.content)).toBe(true);
    expect(file).toMatchObject({
      filename: 'dashboard.pdf',
      contentType: 'application/pdf',
      contentDisposition: 'attachment',
    });
    expect(Buffer.compare(file!.content, Buffer.from(pdf))).toBe(0);
    expect(isPdf(file!.content)).toBe(true);
    // The HTML references the image once: the composer added no second <img>.
    expect(String(mail.html).match(/cid:chart-1\.png/g)).toHaveLength(1);
    // mixed (the PDF) > related (the image) > alternative (text, HTML)
    const rawText = raw.toString('latin1');
    expect(rawText).toMatch(/Content-Type: multipart\/mixed/);
    expect(rawText).toMatch(/Content-Type: multipart\/related/);
    expect(rawText).toMatch(/Content-Type: multipart\/alternative/);
  });

  it('shows an inline image the HTML does not reference at the end of the body', async () => {
    const raw = await composeEmail({ ...base, html: '<html><body><p>Hi</p></body></html>', attachments });
    const mail = await simpleParser(raw, { skipImageLinks: true });
    expect(String(mail.html)).toMatch(/<p>Hi<\/p><p><img src="cid:chart-1\.png"[^>]*><\/p><\/body>/);
    expect(String(mail.html)).not.toContain('cid:dashboard.pdf');
  });

  it('sends a PNG not marked inline as a plain attachment', async () => {
    const raw = await composeEmail({
      ...base,
      html: '<p>x</p>',
      attachments: [{ filename: 'c.png', contentType: 'image/png', content: png, inline: false }],
    });
    const mail = await simpleParser(raw, { skipImageLinks: true });
    expect(mail.attachments[0]).toMatchObject({ contentDisposition: 'attachment', filename: 'c.png' });
    expect(String(mail.html)).not.toContain('cid:');
  });

  it('refuses CR/LF in header values and in attachment filenames', async () => {
    await expect(
      composeEmail({ ...base, subject: 'Hi\r\nBcc: evil@example.com', html: '' }),
    ).rejects.toBeInstanceOf(HeaderInjectionError);
    await expect(
      composeEmail({ ...base, to: ['a@example.com\nBcc: evil@example.com'], html: '' }),
    ).rejects.toBeInstanceOf(HeaderInjectionError);
    await expect(
      composeEmail({ ...base, html: '', headers: { 'X-Report-Id': 'r\r\nX-Evil: 1' } }),
    ).rejects.toBeInstanceOf(HeaderInjectionError);
    for (const filename of ['a\r\nContent-Type: text/html.png', 'a>b.png', '../etc/passwd', ''])
      await expect(
        composeEmail({
          ...base,
          html: '',
          attachments: [{ filename, contentType: 'image/png', content: png, inline: true }],
        }),
      ).rejects.toBeInstanceOf(HeaderInjectionError);
  });

  it('accepts only PNG and PDF bytes, with unique names, and never reads a path or a URL', async () => {
    await expect(
      composeEmail({
        ...base,
        html: '',
        attachments: [
          { filename: 'x.html', contentType: 'text/html' as 'image/png', content: png, inline: false },
        ],
      }),
    ).rejects.toThrow('content type');
    await expect(
      composeEmail({
        ...base,
        html: '',
        attachments: [
          { filename: 'p', contentType: 'application/pdf', content: '/etc/passwd' as never, inline: false },
        ],
      }),
    ).rejects.toThrow('bytes');
    await expect(
      composeEmail({ ...base, html: '', attachments: [attachments[0]!, attachments[0]!] }),
    ).rejects.toThrow('unique');
    // An <img> pointing at a file or URL stays a reference in the HTML; nothing is fetched or embedded.
    const raw = await composeEmail({
      ...base,
      html: '<img src="file:///etc/passwd"><img src="http://169.254.169.254/latest">',
    });
    const mail = await simpleParser(raw, { skipImageLinks: true });
    expect(mail.attachments).toHaveLength(0);
    expect(raw.toString()).not.toContain('root:');
  });
});
