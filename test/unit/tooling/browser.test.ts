import { APT_INSTALL, type BrowserProbe, PLAYWRIGHT_INSTALL, planBrowser } from '../../support/browser';

/** Where the console's browser tests find (or install) a Chromium: test/support/browser.ts. */
const DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n';
const UBUNTU = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n';
const FEDORA = 'NAME="Fedora Linux"\nID=fedora\n';

function probe(over: Partial<BrowserProbe> & { files?: string[] } = {}): BrowserProbe {
  const files = new Set(over.files ?? []);
  return {
    env: { PATH: '/usr/local/bin:/usr/bin' },
    isExecutable: (path) => files.has(path),
    playwrightPath: () => '/root/.cache/ms-playwright/chromium-1/chrome-linux64/chrome',
    isRoot: false,
    osRelease: DEBIAN,
    ...over,
  };
}

describe('finding a browser for the console tests', () => {
  it('CHROMIUM_PATH comes first, before a system browser', () => {
    const plan = planBrowser(
      probe({
        env: { CHROMIUM_PATH: '/opt/c/chrome', PATH: '/usr/bin' },
        files: ['/opt/c/chrome', '/usr/bin/chromium'],
      }),
    );
    expect(plan).toEqual({ kind: 'found', path: '/opt/c/chrome', source: 'CHROMIUM_PATH' });
  });

  it('a CHROMIUM_PATH that is not there fails, naming it, rather than taking another browser', () => {
    const plan = planBrowser(
      probe({ env: { CHROMIUM_PATH: '/nope/chrome', PATH: '/usr/bin' }, files: ['/usr/bin/chromium'] }),
    );
    expect(plan).toMatchObject({ kind: 'missing' });
    expect(plan.kind === 'missing' && plan.message).toContain('CHROMIUM_PATH=/nope/chrome');
  });

  it('a chromium or chrome on the PATH is found wherever it is', () => {
    expect(planBrowser(probe({ files: ['/usr/bin/chromium'] }))).toMatchObject({ path: '/usr/bin/chromium' });
    expect(planBrowser(probe({ files: ['/usr/local/bin/google-chrome'] }))).toMatchObject({
      path: '/usr/local/bin/google-chrome',
    });
  });

  it("Playwright's own browser when there is no system one", () => {
    const own = '/root/.cache/ms-playwright/chromium-1/chrome-linux64/chrome';
    expect(planBrowser(probe({ files: [own] }))).toEqual({ kind: 'found', path: own, source: 'Playwright' });
  });

  it('none, as root on Debian or Ubuntu: installs Debian’s chromium and says so', () => {
    for (const osRelease of [DEBIAN, UBUNTU]) {
      const plan = planBrowser(probe({ isRoot: true, osRelease }));
      expect(plan).toMatchObject({ kind: 'install', commands: [['apt-get', 'update', '-qq'], APT_INSTALL] });
      expect(plan.kind === 'install' && plan.say).toContain('installing Debian');
    }
  });

  it('none, and no right to install: fails with the one command to run', () => {
    const notRoot = planBrowser(probe({ isRoot: false, osRelease: DEBIAN }));
    expect(notRoot.kind === 'missing' && notRoot.message).toContain('Run: sudo apt-get install -y chromium');
    const elsewhere = planBrowser(probe({ isRoot: true, osRelease: FEDORA }));
    expect(elsewhere.kind === 'missing' && elsewhere.message).toContain(`Run: ${PLAYWRIGHT_INSTALL}`);
    const noOs = planBrowser(probe({ isRoot: true, osRelease: undefined }));
    expect(noOs.kind === 'missing' && noOs.message).toContain(`Run: ${PLAYWRIGHT_INSTALL}`);
  });
});
