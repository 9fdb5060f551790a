import { createContext, useContext } from 'react';
import { dict, type DictKey } from './i18n-dict';

export type Lang = 'zh' | 'en';

/**
 * Translates `key`, filling `{name}` placeholders from `vars`. Falls back to English, then the key.
 * A text with forms `one|other` ("{n} turn|{n} turns") picks the form for `vars.n` by the
 * language's plural rules (Chinese has one form and no `|`).
 */
export function translate(lang: Lang, key: DictKey, vars?: Record<string, string | number>): string {
  let s: string = dict[lang][key] ?? dict.en[key] ?? key;
  if (s.includes('|') && vars && typeof vars.n === 'number') {
    const [one, other] = s.split('|');
    s = new Intl.PluralRules(lang === 'zh' ? 'zh-CN' : 'en').select(vars.n) === 'one' ? one : (other ?? one);
  }
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.split(`{${k}}`).join(String(v));
  return s;
}

/** The saved language, else the browser's (zh for any Chinese locale). */
export function initialLang(): Lang {
  try {
    const saved = localStorage.getItem('ha.lang');
    if (saved === 'zh' || saved === 'en') return saved;
  } catch {}
  return typeof navigator !== 'undefined' && /^zh/i.test(navigator.language) ? 'zh' : 'en';
}

export type T = (key: DictKey, vars?: Record<string, string | number>) => string;
export const I18nContext = createContext<{ lang: Lang; t: T }>({ lang: 'en', t: (k, v) => translate('en', k, v) });

/** The translate function of the current language. */
export function useT(): T {
  return useContext(I18nContext).t;
}
export function useLang(): Lang {
  return useContext(I18nContext).lang;
}
