/** One measured figure of a scenario and whether it meets its requirement. */
export interface Figure {
  label: string;
  value: string;
  requirement: string;
  ok: boolean;
}

export interface ScenarioResult {
  name: string;
  figures: Figure[];
  /** Figures for information only (counts, throughput): no requirement. */
  notes: string[];
}

export class ScenarioReport implements ScenarioResult {
  readonly figures: Figure[] = [];
  readonly notes: string[] = [];

  constructor(readonly name: string) {}

  /** Records and prints a figure with its requirement. */
  figure(label: string, value: string | number, requirement: string, ok: boolean): void {
    const figure = { label, value: String(value), requirement, ok };
    this.figures.push(figure);
    console.log(`[faults:${this.name}] FIGURE ${label}: ${figure.value} (${requirement}) ${ok ? 'OK' : 'MISSED'}`);
  }

  note(text: string): void {
    this.notes.push(text);
    console.log(`[faults:${this.name}] ${text}`);
  }

  get ok(): boolean {
    return this.figures.length > 0 && this.figures.every((figure) => figure.ok);
  }
}

/** The closing table: every figure of every scenario. */
export function summary(results: readonly ScenarioReport[]): string {
  const lines = ['', 'Fault suite summary', ''];
  for (const result of results) {
    lines.push(`${result.ok ? 'PASS' : 'FAIL'}  ${result.name}`);
    for (const figure of result.figures) {
      lines.push(`      ${figure.ok ? 'ok    ' : 'MISSED'} ${figure.label}: ${figure.value} (${figure.requirement})`);
    }
    for (const note of result.notes) lines.push(`             ${note}`);
  }
  return lines.join('\n');
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
