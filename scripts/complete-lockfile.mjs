#!/usr/bin/env node
/**
 * Adds to package-lock.json the entries of optional, platform-specific packages that the npm
 * registry reachable from this machine does not serve (it answers 404 for, e.g., the darwin and
 * win32 builds of @biomejs/cli, @swc/core and @duckdb/node-bindings). npm then writes a lockfile
 * without them, and `npm ci` refuses it ("Missing: … from lock file"). An entry with the right
 * os/cpu/libc lets `npm ci` skip the package on this platform without fetching it; on a platform
 * that does need it, npm resolves it normally. Pure Node, no dependencies; idempotent.
 *
 *   node scripts/complete-lockfile.mjs          # fix in place, print what was added
 *   node scripts/complete-lockfile.mjs --check  # exit 1 if anything is missing
 */
import { readFileSync, writeFileSync } from 'node:fs';

const OS = [
  'android',
  'darwin',
  'linux',
  'win32',
  'freebsd',
  'openharmony',
  'netbsd',
  'openbsd',
  'sunos',
  'aix',
];
const CPU = [
  ['arm64', 'arm64'],
  ['aarch64', 'arm64'],
  ['x64', 'x64'],
  ['ia32', 'ia32'],
  ['ppc64', 'ppc64'],
  ['s390x', 's390x'],
  ['loong64', 'loong64'],
  ['riscv64', 'riscv64'],
  ['arm', 'arm'],
];

function platformOf(name) {
  const base = name.split('/').pop() ?? name;
  const parts = base.split('-');
  const os = OS.find((o) => parts.includes(o));
  const cpu = CPU.find(([token]) => parts.includes(token))?.[1];
  if (!os || !cpu) return undefined;
  const libc = os === 'linux' ? (parts.some((p) => p.includes('musl')) ? 'musl' : 'glibc') : undefined;
  return { os, cpu, libc };
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(
    'usage: node scripts/complete-lockfile.mjs [--check]\n' +
      "  Adds to package-lock.json the skipped entries of other platforms' optional binaries, so npm ci\n" +
      '  accepts the lockfile; --check only reports (exit 1 if anything is missing).\n',
  );
  process.exit(0);
}

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages ?? {};
const added = [];
const unknown = [];

for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    const nested = `${path}/node_modules/${dep}`;
    if (packages[key] || packages[nested]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(String(spec))) {
      unknown.push(`${dep}@${spec} (from ${path || 'root'})`);
      continue;
    }
    packages[key] = {
      version: String(spec),
      cpu: [platform.cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added.push(`${dep}@${spec}`);
  }
}

if (process.argv.includes('--check')) {
  if (added.length) {
    process.stderr.write(
      `package-lock.json lacks ${added.length} platform entries: run node scripts/complete-lockfile.mjs\n`,
    );
    process.exit(1);
  }
} else if (added.length) {
  lock.packages = Object.fromEntries(
    Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
  );
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
}
for (const a of added) process.stdout.write(`added ${a}\n`);
for (const u of unknown)
  process.stdout.write(`left alone (not a platform package or not an exact version): ${u}\n`);
