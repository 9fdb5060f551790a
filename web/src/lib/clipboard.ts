/**
 * Copies text. The async Clipboard API needs a secure context (127.0.0.1 and localhost are); on
 * a LAN address over plain HTTP it is missing, so a hidden textarea and `execCommand('copy')`
 * do it there.
 */
export async function copyText(text: string): Promise<void> {
  if (window.isSecureContext && navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  try {
    if (!document.execCommand('copy')) throw new Error('copy refused');
  } finally {
    ta.remove();
  }
}
