/**
 * No import cycles inside daemon/ (docs/architecture.md#layers). Every `daemon/**\/*.ts` is read
 * with TypeScript's own `ts.preProcessFile`, its relative imports resolved (`.js` to `.ts`), and
 * the graph's strongly connected components are the cycles, each named by one loop through it.
 *
 * Type-only imports (`import type`) count: they make no cycle at run time, but two modules that
 * each need the other's types still cannot be read, moved or split alone, and one edit turns
 * such an import into a value import. (Four of issue 24's five cycles were type-only on one side.)
 * Re-exports and dynamic `import()` count too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const DAEMON_DIR = fileURLToPath(new URL('../../daemon/', import.meta.url));

type Graph = Map<string, string[]>;

/** The relative specifiers a source imports, re-exports or loads with `import()`, type-only ones included. */
function relativeImports(source: string): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles.map((file) => file.fileName).filter((name) => name.startsWith('.'));
}

function daemonFiles(dir = DAEMON_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return daemonFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** daemon/'s modules (relative to daemon/) and the daemon modules each imports; what lies outside (shared/) is left out. */
function readDaemonGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of daemonFiles()) {
    const targets = new Set<string>();
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts'));
      const relative = path.relative(DAEMON_DIR, target);
      if (relative.startsWith('..')) continue;
      // An import the graph cannot place would hide its edges: say so rather than skip it.
      if (!statSync(target, { throwIfNoEntry: false })?.isFile())
        throw new Error(`${path.relative(DAEMON_DIR, file)}: cannot resolve ${specifier}`);
      targets.add(relative);
    }
    graph.set(path.relative(DAEMON_DIR, file), [...targets]);
  }
  return graph;
}

/** The graph's cycles (Tarjan's strongly connected components of more than one module, or a module importing itself), each sorted. */
function cyclesOf(graph: Graph): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (module: string) => {
    order.set(module, order.size);
    lowest.set(module, order.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module) ?? []) {
      if (!order.has(next)) {
        visit(next);
        lowest.set(module, Math.min(lowest.get(module)!, lowest.get(next)!));
      } else if (onStack.has(next)) lowest.set(module, Math.min(lowest.get(module)!, order.get(next)!));
    }
    if (lowest.get(module) !== order.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || graph.get(module)?.includes(module)) cycles.push(component.sort());
  };
  for (const module of graph.keys()) if (!order.has(module)) visit(module);
  return cycles;
}

/** One shortest loop through a cycle's first module, to name it: `a.ts → b.ts → a.ts`. */
function loopThrough(graph: Graph, cycle: string[]): string {
  const start = cycle[0];
  const members = new Set(cycle);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const module = queue.shift()!;
    for (const next of graph.get(module) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const between: string[] = [];
        for (let at = module; at !== start; at = cameFrom.get(at)!) between.unshift(at);
        return [start, ...between, start].join(' → ');
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, module);
        queue.push(next);
      }
    }
  }
  return cycle.join(', ');
}

describe('the import graph of daemon/', () => {
  it('reads type-only imports, re-exports and dynamic imports, and leaves packages out', () => {
    const source = [
      "import type { A } from './a.js';",
      "import { b } from '../b.js';",
      "export { c } from './c.js';",
      "export type { D } from './d.js';",
      "import path from 'node:path';",
      "const e = await import('./e.js');",
    ].join('\n');
    expect(relativeImports(source).sort()).toEqual(['../b.js', './a.js', './c.js', './d.js', './e.js']);
  });

  it('finds a cycle and names a loop through it', () => {
    const graph: Graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    const cycles = cyclesOf(graph);
    expect(cycles).toContainEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(cycles).toContainEqual(['e.ts']);
    expect(cycles).toHaveLength(2);
    expect(loopThrough(graph, ['a.ts', 'b.ts', 'c.ts'])).toBe('a.ts → b.ts → c.ts → a.ts');
    expect(loopThrough(graph, ['e.ts'])).toBe('e.ts → e.ts');
  });

  it('has no import cycle', () => {
    const graph = readDaemonGraph();
    expect(cyclesOf(graph).map((cycle) => loopThrough(graph, cycle))).toEqual([]);
  });
});
