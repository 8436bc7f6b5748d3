/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scrape read strictly: every metric's TYPE, and its samples; a line that is not the format throws. */
export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The one sample of `name` with these labels (all given ones must match); undefined when none. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (match === null) throw new Error(`not a label set: ${line}`);
    labels[match[1] as string] = (match[2] as string).replace(/\\n/g, '\n').replace(/\\(.)/g, '$1');
  }
  return labels;
}

function parseValue(raw: string, line: string): number {
  // As Prometheus reads it (Go's ParseFloat): NaN and Inf in any case.
  const word = raw.toLowerCase();
  if (word === '+inf' || word === 'inf') return Infinity;
  if (word === '-inf') return -Infinity;
  if (word === 'nan') return Number.NaN;
  const value = Number(raw);
  if (raw.trim() === '' || Number.isNaN(value)) throw new Error(`not a sample value: ${line}`);
  return value;
}

/** Parses the text format (version 0.0.4) that Prometheus scrapes. */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type !== null) types.set(type[1] as string, type[2] as string);
      else if (!/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* /.test(line)) throw new Error(`not a HELP or TYPE line: ${line}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    samples.push({ name: match[1] as string, labels: match[2] === undefined ? {} : parseLabels(match[2], line), value: parseValue(match[3] as string, line) });
  }
  return {
    types,
    samples,
    value: (name, labels = {}) => samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))?.value,
  };
}
