import {
  markdownToHtml,
  markdownToMrkdwn,
  markdownToText,
} from '../../../shared/domain/reports/render/markdown';

describe('TEXT widget markdown', () => {
  const md =
    '# Weekly **spend**\n\nCosts are _up_; see [the dashboard](https://app.example.com/d?a=1&b=2).\n\n- EC2 `m5.large`\n- S3\n\n1. one\n2. two';

  it('renders headings, emphasis, links, code and lists to HTML', () => {
    expect(markdownToHtml(md)).toBe(
      [
        '<h2>Weekly <strong>spend</strong></h2>',
        '<p>Costs are <em>up</em>; see <a href="https://app.example.com/d?a=1&amp;b=2" rel="noopener noreferrer">the dashboard</a>.</p>',
        '<ul><li>EC2 <code>m5.large</code></li><li>S3</li></ul>',
        '<ol><li>one</li><li>two</li></ol>',
      ].join('\n'),
    );
  });

  it('renders the same to Slack mrkdwn and to plain text', () => {
    expect(markdownToMrkdwn(md)).toBe(
      '*Weekly *spend**\n\nCosts are _up_; see <https://app.example.com/d?a=1&b=2|the dashboard>.\n\n• EC2 `m5.large`\n• S3\n\n1. one\n2. two',
    );
    expect(markdownToText('see [x](https://a.test)')).toBe('see x (https://a.test)');
  });

  it('escapes raw HTML and refuses script URLs', () => {
    const html = markdownToHtml(
      '<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))',
    );
    expect(html).not.toMatch(/<script|<img|href="javascript/i);
    expect(html).toContain('&lt;script&gt;');
    expect(markdownToMrkdwn('<!channel> & <@U1>')).toBe('&lt;!channel&gt; &amp; &lt;@U1&gt;');
  });
});
