import { useState } from 'react';
import { useT } from '../../i18n';

/** A message longer than this (characters or lines) is shown folded, with a button to open it. */
export const FOLD_CHARS = 3000;
export const FOLD_LINES = 40;

/** Where a long message is cut while folded: about the first 1,500 characters, at most 20 lines. */
export function foldedPart(text: string): string | undefined {
  const lines = text.split('\n');
  if (text.length <= FOLD_CHARS && lines.length <= FOLD_LINES) return undefined;
  let cut = lines.slice(0, 20).join('\n');
  if (cut.length > 1500) cut = Array.from(cut).slice(0, 1500).join('');
  return cut;
}

/**
 * A person's message as sent: a pasted log or document of thousands of lines is folded to its
 * start ("Show all …"), so one message does not make the chat a scroll of its own.
 */
export function LongText({ text }: { text: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const folded = foldedPart(text);
  if (folded === undefined) return <div className="text">{text}</div>;
  return (
    <div className="text" data-testid="long-text">
      {open ? text : `${folded}…`}
      <div>
        <button className="btn small link fold-toggle" onClick={() => setOpen(!open)} data-testid="long-text-toggle">
          {open ? t('chat.showLess') : t('chat.showAll', { n: text.length.toLocaleString() })}
        </button>
      </div>
    </div>
  );
}
