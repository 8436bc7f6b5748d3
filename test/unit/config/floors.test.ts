import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The floors of docs/ARCHITECTURE.md, held: the table is read from the doc itself (floor, rooms), every file of src/
 * is given its room, and every relative import (static, `export ... from`, `await import()`) must go to a room on a
 * lower floor; the rooms' graph has no cycle.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(ROOT, 'src');

/** Room name (`cli`, `errors.ts`) -> floor, from the table under "## The floors". */
function floorsOfDoc(text: string): Map<string, number> {
  const section = text.split('## The floors')[1]?.split('\n## ')[0] ?? '';
  const floors = new Map<string, number>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*(\d+)\s*\|([^|]*)\|/.exec(line);
    if (cells === null) continue;
    for (const [, name] of (cells[2] ?? '').matchAll(/`([^`]+)`/g)) floors.set((name ?? '').replace(/\/$/, ''), Number(cells[1]));
  }
  return floors;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A file's room: the folder of src/ it is in, or the file itself at the top. */
function roomOf(file: string): string {
  return relative(SRC, file).split(/[\\/]/)[0] ?? '';
}

const IMPORT = /(?:\bimport|\bexport)\s[^;'"`]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|\bimport\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The src files a file imports by relative path. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(IMPORT)].map((match) => resolve(dirname(file), (match[1] ?? match[2] ?? match[3] ?? '').replace(/\.js$/, '.ts')));
}

/** Room -> rooms it imports (itself left out). */
function roomGraph(files: readonly string[], read: (file: string) => string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const from = roomOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of importsOf(file, read(file))) {
      if (!target.startsWith(SRC)) continue;
      const to = roomOf(target);
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** The imports that go up or across: `from -> to` where `to` does not stand on a lower floor than `from`. */
function upward(graph: Map<string, Set<string>>, floors: Map<string, number>): string[] {
  const wrong: string[] = [];
  for (const [from, edges] of graph) {
    for (const to of edges) {
      const a = floors.get(from);
      const b = floors.get(to);
      if (a === undefined || b === undefined || b >= a) wrong.push(`${from} (floor ${a ?? '?'}) -> ${to} (floor ${b ?? '?'})`);
    }
  }
  return wrong;
}

/** Every cycle's rooms, found by a depth-first walk (a room met again while still on the path closes one). */
function cycles(graph: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (room: string): void => {
    const at = path.indexOf(room);
    if (at >= 0) {
      found.push([...path.slice(at), room].join(' -> '));
      return;
    }
    if (done.has(room)) return;
    path.push(room);
    for (const next of graph.get(room) ?? []) visit(next);
    path.pop();
    done.add(room);
  };
  for (const room of graph.keys()) visit(room);
  return found;
}

describe('the floors of docs/ARCHITECTURE.md', () => {
  const floors = floorsOfDoc(readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
  const files = filesUnder(SRC);
  const graph = roomGraph(files, (file) => readFileSync(file, 'utf8'));

  it('the table names every room of src/, and only rooms that exist', () => {
    const rooms = new Set(files.map(roomOf));
    expect([...rooms].filter((room) => !floors.has(room)).sort()).toEqual([]);
    expect([...floors.keys()].filter((room) => !rooms.has(room)).sort()).toEqual([]);
  });

  it('no room imports a room on its own floor or a higher one', () => {
    expect(upward(graph, floors)).toEqual([]);
  });

  it('no import cycle between rooms', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('sees a static, a re-exported and a lazy import, and catches an upward one and a cycle', () => {
    const file = join(SRC, 'errors.ts');
    const text = "import type { A } from './cli/a.js';\nexport { b } from './run/b.js';\nconst c = await import('../src/publish/c.js');\nimport './listen/d.js';";
    expect(importsOf(file, text).map((target) => relative(SRC, target))).toEqual(['cli/a.ts', 'run/b.ts', 'publish/c.ts', 'listen/d.ts']);
    const made = roomGraph([file, join(SRC, 'cli/x.ts')], (f) => (f === file ? text : "import { e } from '../errors.js';"));
    expect(upward(made, floors)).toContain('errors.ts (floor 1) -> cli (floor 9)');
    expect(cycles(made)).toEqual(['errors.ts -> cli -> errors.ts']);
  });
});
