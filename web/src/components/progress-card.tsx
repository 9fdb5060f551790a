import type { CSSProperties } from 'react';

/**
 * Long work in progress (W: "long work shows progress"): a spinner, what is happening, a figure,
 * and a meter — `fraction` 0…1, or undefined when the total is not known (a short sliver then).
 */
export function ProgressCard({ label, figure, fraction, testId, style }: { label: string; figure: string; fraction: number | undefined; testId: string; style?: CSSProperties }) {
  return (
    <div className="progress-card" data-testid={testId} style={style}>
      <div className="row gap">
        <span className="spinner" />
        <span className="grow">{label}</span>
        <span className="muted small">{figure}</span>
      </div>
      <div className="meter">
        <div className="meter-fill" style={{ width: `${fraction === undefined ? 10 : Math.round(fraction * 100)}%` }} />
      </div>
    </div>
  );
}
