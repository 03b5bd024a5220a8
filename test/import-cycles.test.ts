/**
 * No import cycle among the TypeScript sources (ts/): every module's imports, `import type` and
 * `export … from` included, as TypeScript reads them (`preProcessFile`) and resolves them
 * (`resolveModuleName` with the project's compiler options); the strongly connected components
 * of that graph are single modules. A cycle found is named module by module.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'ts');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Each source's imports of other sources under ts/. */
function importGraph(): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('tsconfig.json does not parse');
  const files = sources(src);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, config.options, ts.sys).resolvedModule?.resolvedFileName;
      if (resolved && known.has(path.resolve(resolved))) targets.add(path.resolve(resolved));
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan's, with an explicit stack). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.node)!;
      if (top.edge < edges.length) {
        const to = edges[top.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(path.relative(src, member));
        } while (member !== top.node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found;
}

describe('the TypeScript sources', () => {
  it('import one another without a cycle', () => {
    const graph = importGraph();
    // The graph is the real one: the sources are there, their imports resolve, `import type` counts.
    expect(graph.size).toBeGreaterThan(100);
    expect(readFileSync(path.join(src, 'query/json.ts'), 'utf8')).toContain("import type { QueryResult, Value } from './schema.js';");
    expect(graph.get(path.join(src, 'query/json.ts'))).toEqual([path.join(src, 'query/schema.ts')]);
    expect(cycles(graph)).toEqual([]);
  });
});
