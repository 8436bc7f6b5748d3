/** The fenced code blocks of README.md and docs/*.md, for the tests that run or check them. */

const SHELL_LANGS = new Set(['sh', 'bash', 'shell']);
const TS_LANGS = new Set(['ts', 'typescript']);

export interface Block {
  /** e.g. `README.md:42`, the line of the opening fence. */
  where: string;
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  kind: 'shell' | 'ts' | 'other';
  flags: string[];
  code: string;
}

/** The fenced blocks of a markdown text, with their info strings split into language and flags. */
export function fencedBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*(\S*)\s*(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[1] ?? '```';
    const lang = (open[2] ?? '').toLowerCase();
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? '').startsWith(fence); i++) body.push(lines[i] ?? '');
    const kind = SHELL_LANGS.has(lang) ? 'shell' : TS_LANGS.has(lang) ? 'ts' : 'other';
    const flags = (open[3] ?? '').split(/\s+/).filter(Boolean);
    blocks.push({ where: `${file}:${start + 1}`, file, line: start + 1, kind, flags, code: body.join('\n') + '\n' });
  }
  return blocks;
}

