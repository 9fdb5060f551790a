import { afterEach, describe, expect, it, vi } from 'vitest';
import { isProactiveOutput, notificationState, showNotification } from './browser-notify';

describe('browser notifications for proactive messages', () => {
  afterEach(() => vi.unstubAllGlobals());
  it('recognises proactive output events only', () => {
    expect(isProactiveOutput({ meta: { proactive: true, source: 'timer' } })).toBe(true);
    expect(isProactiveOutput({ meta: { status: 'ok' } })).toBe(false);
    expect(isProactiveOutput(undefined)).toBe(false);
  });
  it('shows a notification only when granted, and never throws', () => {
    const shown: unknown[] = [];
    class FakeNotification {
      static permission = 'default';
      constructor(title: string, opts: { body: string }) {
        shown.push([title, opts.body]);
      }
    }
    vi.stubGlobal('Notification', FakeNotification);
    expect(showNotification('HomeAgent', 'Stretch!')).toBe(false);
    FakeNotification.permission = 'granted';
    expect(notificationState()).toBe('granted');
    expect(showNotification('HomeAgent', 'x'.repeat(500))).toBe(true);
    expect(shown).toEqual([['HomeAgent', 'x'.repeat(300)]]);
    vi.stubGlobal('Notification', class {
      static permission = 'granted';
      constructor() {
        throw new Error('Illegal constructor');
      }
    });
    expect(showNotification('HomeAgent', 'x')).toBe(false);
  });
});
