import { useEffect, useRef, type KeyboardEvent as ReactKeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useT } from '../i18n';
import { Icon } from './icon';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
/** What the focus may start on: a field to type or choose in (not a box to tick, not a button). */
const FIELD = 'input:not([type=checkbox]):not([type=radio]), select, textarea';
/** Inputs where Enter means "done" (not a textarea, a checkbox or a button). */
const SINGLE_LINE = new Set(['text', 'search', 'url', 'email', 'password', 'number', 'tel']);

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
}

/**
 * A modal dialog: Escape and the scrim close it. Rendered into `document.body`, so a dialog opened
 * from inside a contained element (a chat turn: `content-visibility`) is not clipped by it.
 *
 * Keyboard: on open the focus moves into the dialog (the field marked `autoFocus`, else its first
 * field, else the dialog itself — never a button); Tab and Shift+Tab go round inside it, not to the page behind the
 * scrim; on close the focus goes back to what opened it. With `onSubmit`, Enter in a one-line field
 * does what the primary button does (the caller checks the same conditions as that button).
 */
export function Dialog({ title, children, onClose, onSubmit, testId, wide }: { title: string; children: ReactNode; onClose: () => void; onSubmit?: () => void; testId?: string; wide?: boolean }) {
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  // Taken while rendering, before a field's autoFocus moves the focus into the dialog.
  const opener = useRef(typeof document !== 'undefined' && document.activeElement instanceof HTMLElement ? document.activeElement : undefined);
  useEffect(() => {
    const fn = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', fn);
    return () => window.removeEventListener('keydown', fn);
  }, [onClose]);
  // Once per dialog: into it on open, back to the opener on close.
  useEffect(() => {
    const root = box.current;
    if (root && !root.contains(document.activeElement)) {
      // A field, never a button: a dialog that opens by itself (a command to confirm) must not be
      // answered by an Enter that was meant for the chat box.
      const body = root.querySelector<HTMLElement>('.dialog-body');
      const field = body && focusables(body).find((el) => el.matches(FIELD));
      (field ?? root).focus();
    }
    const back = opener.current;
    return () => {
      if (back?.isConnected) back.focus();
    };
  }, []);
  const onKeyDown = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    const root = box.current;
    if (!root) return;
    if (e.key === 'Tab') {
      const list = focusables(root);
      if (!list.length) return;
      const i = list.indexOf(document.activeElement as HTMLElement);
      if (e.shiftKey && i <= 0) {
        e.preventDefault();
        list[list.length - 1].focus();
      } else if (!e.shiftKey && (i === -1 || i === list.length - 1)) {
        e.preventDefault();
        list[0].focus();
      }
      return;
    }
    const el = e.target;
    if (e.key !== 'Enter' || !onSubmit || !(el instanceof HTMLInputElement) || !SINGLE_LINE.has(el.type)) return;
    if (e.shiftKey || e.ctrlKey || e.altKey || e.metaKey || e.nativeEvent.isComposing) return;
    e.preventDefault();
    // A held Enter repeats: only its first press submits (one memory saved, not one per repeat).
    if (!e.repeat) onSubmit();
  };
  return createPortal(
    <div className="scrim" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={box} className={`dialog${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-label={title} data-testid={testId} tabIndex={-1} onKeyDown={onKeyDown}>
        <div className="dialog-head">
          <h3>{title}</h3>
          <button className="icon-btn" onClick={onClose} aria-label={t('common.close')}>
            <Icon name="close" />
          </button>
        </div>
        <div className="dialog-body">{children}</div>
      </div>
    </div>,
    document.body,
  );
}
