/** An accessible on/off switch. */
export function Switch({ checked, onChange, disabled, testId, label }: { checked: boolean; onChange: (v: boolean) => void; disabled?: boolean; testId?: string; label?: string }) {
  return (
    <button type="button" role="switch" aria-checked={checked} aria-label={label} disabled={disabled} className={`switch${checked ? ' on' : ''}`} onClick={() => onChange(!checked)} data-testid={testId}>
      <span className="knob" />
    </button>
  );
}
