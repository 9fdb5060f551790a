import { describe, expect, it } from 'vitest';
import { errorInWords, fileErrorInWords, proxyInWords } from './error-words';

describe("the daemon's errors in the page's language", () => {
  it('a whole reason a form meets is said in Chinese; in English it stays the daemon\'s', () => {
    const e = { code: 'TRANSFER_WRONG_PASSPHRASE', message: 'the passphrase does not open this archive' };
    expect(errorInWords(e, 'zh')).toBe('口令打不开这个存档');
    expect(errorInWords(e, 'en')).toBe('the passphrase does not open this archive');
  });
  it('a code with one meaning leads in Chinese, the reason follows in brackets', () => {
    expect(errorInWords({ code: 'TRANSFER_CORRUPT', message: 'entry sessions/a.jsonl is damaged: invalid distance' }, 'zh')).toBe('存档已损坏（entry sessions/a.jsonl is damaged: invalid distance）');
    expect(errorInWords({ code: 'NETWORK', message: 'Failed to fetch' }, 'zh')).toMatch(/^连接不到 HomeAgent.*（Failed to fetch）$/);
  });
  it('what was not found, and how much is too much, from the details', () => {
    expect(errorInWords({ code: 'NOT_FOUND', message: 'memory not found: m-1', details: { what: 'memory', id: 'm-1' } }, 'zh')).toBe('找不到记忆：m-1');
    expect(errorInWords({ code: 'NOT_FOUND', message: 'gizmo not found: g', details: { what: 'gizmo', id: 'g' } }, 'zh')).toBe('找不到 gizmo：g');
    expect(errorInWords({ code: 'PAYLOAD_TOO_LARGE', message: 'request body is larger than 1048576 bytes', details: { limitBytes: 1048576 } }, 'zh')).toBe('内容太大：上限是 1 MB');
  });
  it('a setting\'s reason: the key as it is, a list item by its place or value, zod in words', () => {
    expect(errorInWords({ message: 'invalid value for core.x: 2: Too big: expected number to be <=10' }, 'zh')).toBe('core.x 的值无效：第 3 项：太大：至多为 10');
    expect(errorInWords({ message: '"abc": a QQ number such as "123456789" (or "qq:123456789", as in your own ids)' }, 'zh')).toMatch(/^“abc”：应为 QQ 号/);
  });
  it('an unknown reason is left as the daemon wrote it', () => {
    expect(errorInWords({ code: 'VALIDATION', message: 'something new went wrong' }, 'zh')).toBe('something new went wrong');
  });
});

describe('LLM sources', () => {
  it('every source failed: the sentence in Chinese, each source\'s own answer as it came', () => {
    expect(errorInWords({ code: 'ALL_PROVIDERS_FAILED', message: 'All LLM sources failed:\n- openai: HTTP 401 bad key' }, 'zh')).toBe('所有 LLM 来源都失败了：\n- openai: HTTP 401 bad key');
  });
});

describe('a memory file read only in part', () => {
  it('its reason and the refusal to change it are said in Chinese', () => {
    expect(fileErrorInWords('the file is not UTF-8 text (a binary or another encoding)', 'zh')).toBe('文件不是 UTF-8 文本（可能是二进制文件或其他编码）');
    expect(fileErrorInWords('the front matter is not valid YAML: bad indentation', 'zh')).toBe('开头的属性（front matter）不是合法的 YAML：bad indentation');
    expect(fileErrorInWords('the file is not UTF-8 text (a binary or another encoding)', 'en')).toBe('the file is not UTF-8 text (a binary or another encoding)');
    expect(errorInWords({ code: 'CONFLICT', message: 'memory photo cannot be changed here until its file is fixed: the file is not UTF-8 text (a binary or another encoding) (memories/photo.md)' }, 'zh')).toBe(
      '记忆 photo 的文件需要先修好才能在这里修改：文件不是 UTF-8 文本（可能是二进制文件或其他编码）（memories/photo.md）',
    );
  });

  it('the outbound proxy: a refused proxy URL and a request that failed at the proxy are said in Chinese, naming the proxy (decision 0670)', () => {
    expect(errorInWords({ code: 'VALIDATION', message: 'invalid value for core.network.proxy: a SOCKS proxy is not supported: give the HTTP port of the proxy (Clash and V2Ray offer one, such as "http://127.0.0.1:7890")' }, 'zh')).toBe(
      'core.network.proxy 的值无效：不支持 SOCKS 代理：请填写代理的 HTTP 端口（Clash、V2Ray 都提供，例如 “http://127.0.0.1:7890”）',
    );
    expect(errorInWords({ code: 'VALIDATION', message: 'invalid value for core.network.proxy: a proxy is an http:// or https:// URL with a host and port, such as "http://127.0.0.1:7890" ("" = none)' }, 'zh')).toMatch(/^core\.network\.proxy 的值无效：代理应为带主机和端口的/);
    const unreachable = 'the proxy http://127.0.0.1:7890 could not be reached (ECONNREFUSED) on the way to api.openai.com:443: check that it runs, or change the "Outbound proxy" setting (core.network.proxy)';
    expect(errorInWords({ code: 'PROVIDER_NETWORK', message: `openai: network error: ${unreachable}` }, 'zh')).toBe('openai：连不上代理 http://127.0.0.1:7890（ECONNREFUSED），无法访问 api.openai.com:443：请确认代理在运行，或修改“出站代理”设置（core.network.proxy）');
    expect(proxyInWords('Telegram getMe: the proxy http://me:***@10.0.0.2:3128 refused to open a tunnel to api.telegram.org:443 (HTTP 407): check its rules and login, or change the "Outbound proxy" setting (core.network.proxy)')).toBe(
      'Telegram getMe：代理 http://me:***@10.0.0.2:3128 拒绝建立到 api.telegram.org:443 的隧道（HTTP 407）：请检查代理的规则和账号密码，或修改“出站代理”设置（core.network.proxy）',
    );
  });
});
