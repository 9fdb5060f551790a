/**
 * Browser notifications for proactive messages: a timer's result or a notice that reaches
 * the WebUI shows as a system notification once the person allowed it (the permission is asked
 * only from a click in Settings → Channels, as browsers require).
 */

export type NotifyPermission = 'granted' | 'denied' | 'default' | 'unsupported';

export function notificationState(): NotifyPermission {
  return typeof Notification === 'undefined' ? 'unsupported' : (Notification.permission as NotifyPermission);
}

export async function requestNotifications(): Promise<NotifyPermission> {
  if (typeof Notification === 'undefined') return 'unsupported';
  try {
    return (await Notification.requestPermission()) as NotifyPermission;
  } catch {
    return notificationState();
  }
}

/** Shows a notification when allowed; returns whether it did. Never throws. */
export function showNotification(title: string, body: string, tag?: string): boolean {
  if (notificationState() !== 'granted') return false;
  try {
    new Notification(title, { body: body.slice(0, 300), tag });
    return true;
  } catch {
    return false;
  }
}

/** True for an `output` event that nobody asked for in the chat (timer, notice): it deserves a notification. */
export function isProactiveOutput(payload: unknown): boolean {
  const meta = (payload as { meta?: { proactive?: unknown } } | undefined)?.meta;
  return meta?.proactive === true;
}
