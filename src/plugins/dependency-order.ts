/**
 * Topological order of `names` and, transitively, their dependencies (dependencies first). A
 * dependency cycle marks every member; a missing dependency (`depsOf` returns undefined for it)
 * marks the plugin that needs it; a plugin whose dependency has a problem gets one too. Plugins
 * with a problem still appear in `order` (so that their state can be reported).
 */
export function dependencyOrder(names: string[], depsOf: (name: string) => string[] | undefined): { order: string[]; problems: Map<string, string> } {
  const order: string[] = [];
  const problems = new Map<string, string>();
  const mark = new Map<string, 'visiting' | 'done'>();
  const visit = (n: string, path: string[]): boolean => {
    const m = mark.get(n);
    if (m === 'done') return !problems.has(n);
    if (m === 'visiting') {
      const members = path.slice(path.indexOf(n));
      const cycle = [...members, n].join(' → ');
      for (const c of members) problems.set(c, `dependency cycle: ${cycle}`);
      return false;
    }
    mark.set(n, 'visiting');
    let ok = true;
    for (const d of depsOf(n) ?? []) {
      if (depsOf(d) === undefined) {
        problems.set(n, `missing dependency "${d}"`);
        ok = false;
        continue;
      }
      if (!visit(d, [...path, n])) {
        if (!problems.has(n)) problems.set(n, `dependency "${d}" cannot start: ${problems.get(d) ?? 'failed'}`);
        ok = false;
      }
    }
    mark.set(n, 'done');
    order.push(n);
    return ok && !problems.has(n);
  };
  for (const n of names) if (depsOf(n) !== undefined) visit(n, []);
  return { order, problems };
}
