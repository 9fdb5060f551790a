import { describe, expect, it } from 'vitest';
import { fullSetupTurn } from './setup-card-turn';

const noModel = (turnId: string) => ({ turnId, error: { code: 'NO_PROVIDER_CONFIGURED' } });

describe('fullSetupTurn', () => {
  it('is the newest turn that found no model; answered and failed turns after it do not count', () => {
    expect(fullSetupTurn([noModel('s#1'), noModel('s#2'), { turnId: 's#3' }, { turnId: 's#4', error: { code: 'ALL_PROVIDERS_FAILED' } }])).toBe('s#2');
  });

  it('is none when no turn shown found no model', () => {
    expect(fullSetupTurn([{ turnId: 's#1' }])).toBeUndefined();
    expect(fullSetupTurn([])).toBeUndefined();
  });
});
