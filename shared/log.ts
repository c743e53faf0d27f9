/**
 * Structured JSON logs on stdout/stderr (CloudWatch reads them as-is). Error objects are reduced to
 * name, message and stack here, in the log only: responses never carry them.
 */
type Fields = Record<string, unknown>;

function serialise(fields: Fields): Fields {
  const out: Fields = {};
  for (const [k, val] of Object.entries(fields)) {
    out[k] = val instanceof Error ? { name: val.name, message: val.message, stack: val.stack } : val;
  }
  return out;
}

function write(level: string, message: string, fields: Fields = {}): void {
  if (process.env.LOG_LEVEL === 'silent') return;
  if (level === 'debug' && process.env.LOG_LEVEL !== 'debug') return;
  const line = JSON.stringify({ level, message, time: new Date().toISOString(), ...serialise(fields) });
  if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

export const log = {
  debug: (message: string, fields?: Fields) => write('debug', message, fields),
  info: (message: string, fields?: Fields) => write('info', message, fields),
  warn: (message: string, fields?: Fields) => write('warn', message, fields),
  error: (message: string, fields?: Fields) => write('error', message, fields),
};
