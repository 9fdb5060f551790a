import { describe, expect, it } from 'vitest';
import { durationWords, localDay, plainPreview } from './format';

describe('localDay: a day on the person\'s calendar (core.agent.timezone, decision 0270)', () => {
  // 23:30 on 1 May in Shanghai (UTC+8) is 15:30 UTC on 1 May; 23:30 on 1 May in New York (UTC-4) is 03:30 UTC on 2 May.
  const shanghai2330 = Date.UTC(2026, 4, 1, 15, 30);
  const newYork2330 = Date.UTC(2026, 4, 2, 3, 30);
  // 07:30 on 2 May in Shanghai is 23:30 UTC on 1 May: the UTC day would be the day before.
  const shanghai0730 = Date.UTC(2026, 4, 1, 23, 30);

  it('a fact stated at 23:30 local on 1 May shows 1 May, though UTC has already moved on', () => {
    expect(new Date(newYork2330).toISOString().slice(0, 10)).toBe('2026-05-02');
    expect(localDay(newYork2330, 'America/New_York')).toBe('2026-05-01');
    expect(localDay(shanghai2330, 'Asia/Shanghai')).toBe('2026-05-01');
  });

  it('and one stated just after local midnight shows the local day, not the UTC day before', () => {
    expect(new Date(shanghai0730).toISOString().slice(0, 10)).toBe('2026-05-01');
    expect(localDay(shanghai0730, 'Asia/Shanghai')).toBe('2026-05-02');
    expect(localDay(Date.UTC(2026, 4, 1, 16, 0), 'Asia/Shanghai')).toBe('2026-05-02');
    expect(localDay(Date.UTC(2026, 4, 1, 15, 59), 'Asia/Shanghai')).toBe('2026-05-01');
  });

  it('the same instant is a different day in different zones; UTC stays UTC', () => {
    expect(localDay(shanghai0730, 'UTC')).toBe('2026-05-01');
    expect(localDay(shanghai0730, 'Asia/Tokyo')).toBe('2026-05-02');
    expect(localDay(shanghai0730, 'America/Los_Angeles')).toBe('2026-05-01');
  });

  it('"" or a name the browser does not know: this device\'s zone', () => {
    const device = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' }).format(shanghai0730);
    expect(localDay(shanghai0730, '')).toBe(device);
    expect(localDay(shanghai0730)).toBe(device);
    expect(localDay(shanghai0730, 'Mars/Olympus')).toBe(device);
    expect(localDay(Number.NaN, 'Asia/Shanghai')).toBe('');
  });
});

describe('plainPreview', () => {
  it('drops heading marks, emphasis and code ticks', () => {
    expect(plainPreview('### Pets\n**Rex** is a `dog`')).toBe('Pets\nRex is a dog');
  });
});

describe('durationWords', () => {
  it('says a setting\'s duration in the page\'s language; anything else as written', () => {
    expect(durationWords('10m', 'zh')).toBe('10 分钟');
    expect(durationWords('1h30m', 'zh')).toBe('1 小时 30 分钟');
    expect(durationWords('1m', 'en')).toBe('1 minute');
    expect(durationWords('45s', 'en')).toBe('45 seconds');
    expect(durationWords('soon', 'zh')).toBe('soon');
  });
});
