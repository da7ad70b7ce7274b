/** The WHERE lines that programs/where.ts prints, parsed and sorted by rank. */
export interface Where {
  rank: number;
  size: number;
  node: number;
  nodes: number;
  nodeOf: number[];
  ok: boolean;
}

export function wheres(stdout: string): Where[] {
  return stdout
    .split('\n')
    .filter((l) => l.includes('WHERE '))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Where)
    .sort((a, b) => a.rank - b.rank);
}
