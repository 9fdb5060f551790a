import { describe, expect, it } from 'vitest';
import { channelSentence, reasonPhrase, retryPhrase, secondsLeft, type ChannelWords } from './channel-words';

/** One sentence of every code the daemon sends (src/builtins/shared/channel-words.ts), worded in both languages. */
const CASES: [ChannelWords, string, string][] = [
  [{ code: 'CHANNEL_STOPPED' }, 'Stopped.', '已停止。'],
  [{ code: 'CHANNEL_FAILED', params: { reason: 'boom' } }, 'Failed: boom', '出错：boom'],
  [{ code: 'TELEGRAM_NO_TOKEN' }, 'No bot token: paste it into "Bot token".', '没有机器人令牌：请填入“机器人令牌”。'],
  [{ code: 'TELEGRAM_NOT_CONFIGURED' }, 'No bot token: paste it into "Bot token" first.', '还没有机器人令牌：请先填入“机器人令牌”。'],
  [{ code: 'TELEGRAM_CHECKING_TOKEN' }, 'Checking the bot token (getMe)…', '正在检查机器人令牌（getMe）…'],
  [{ code: 'TELEGRAM_POLLING', params: { bot: '@home_bot' } }, 'Receiving messages as @home_bot', '正在以 @home_bot 接收消息'],
  [
    { code: 'TELEGRAM_UNREACHABLE', params: { method: 'getMe', reason: 'ECONNREFUSED' } },
    'Telegram getMe: the Bot API is unreachable: connection refused (ECONNREFUSED). Check the network or the "Outbound proxy" setting, or the "Bot API server" setting.',
    'Telegram getMe：连不上 Bot API：连接被拒绝（ECONNREFUSED）。请检查网络或“出站代理”设置，或“Bot API 服务器”设置。',
  ],
  [
    { code: 'TELEGRAM_PROXY_FAILED', params: { method: 'getMe', proxy: 'http://127.0.0.1:7890', proxyCode: 'PROXY_UNREACHABLE' } },
    'Telegram getMe: the outbound proxy http://127.0.0.1:7890 failed (PROXY_UNREACHABLE). Check that the proxy is running, or the "Outbound proxy" setting.',
    'Telegram getMe：出站代理 http://127.0.0.1:7890 连接失败（PROXY_UNREACHABLE）。请确认代理正在运行，或检查“出站代理”设置。',
  ],
  [{ code: 'TELEGRAM_TOKEN_REJECTED', params: { method: 'getMe', errorCode: 401, description: 'Unauthorized' } }, 'Telegram rejected the bot token (401 Unauthorized). Check "Bot token".', 'Telegram 拒绝了机器人令牌（401 Unauthorized）。请检查“机器人令牌”。'],
  [
    { code: 'TELEGRAM_TOKEN_REJECTED_STOPPED', params: { errorCode: 404, description: 'Not Found' } },
    'Telegram rejected the bot token (404 Not Found). Check "Bot token"; no messages are received until it changes.',
    'Telegram 拒绝了机器人令牌（404 Not Found）。请检查“机器人令牌”；改好之前不再接收消息。',
  ],
  [{ code: 'TELEGRAM_RATE_LIMITED', params: { method: 'getUpdates', retryAfter: 5 } }, 'Telegram getUpdates: too many requests; Telegram asked to wait.', 'Telegram getUpdates：请求太频繁，Telegram 要求稍后再试。'],
  [
    { code: 'TELEGRAM_CONFLICT', params: { stage: 'getUpdates', description: 'Conflict: terminated by other getUpdates request' } },
    'Telegram getUpdates: Conflict: terminated by other getUpdates request — another copy of this bot is receiving its messages, or a webhook is set.',
    'Telegram getUpdates：Conflict: terminated by other getUpdates request——这个机器人的另一份程序正在接收它的消息，或者设置了 webhook。',
  ],
  [{ code: 'TELEGRAM_API', params: { method: 'getUpdates', errorCode: 502, description: 'Bad Gateway' } }, 'Telegram getUpdates failed: 502 Bad Gateway', 'Telegram getUpdates 失败：502 Bad Gateway'],
  [{ code: 'TELEGRAM_STAGE_FAILED', params: { stage: 'handling an update', reason: 'disk full' } }, 'Handling a message failed: disk full', '处理收到的消息失败：disk full'],
  [{ code: 'QQ_OFF' }, '"Connection mode" is off.', '“连接方式”为关闭。'],
  [{ code: 'QQ_NOT_CONFIGURED' }, '"Connection mode" is off: choose forward or reverse first.', '“连接方式”为关闭：请先选择正向或反向。'],
  [{ code: 'ONEBOT_CONNECTING', params: { url: 'ws://127.0.0.1:3001' } }, 'Connecting to ws://127.0.0.1:3001…', '正在连接 ws://127.0.0.1:3001…'],
  [{ code: 'ONEBOT_CONNECTED', params: { nickname: 'Bot', selfId: '10001' } }, 'Connected as Bot (10001)', '已连接：Bot（10001）'],
  [{ code: 'ONEBOT_CONNECTION_CLOSED' }, 'The OneBot connection closed.', 'OneBot 连接已关闭。'],
  [{ code: 'ONEBOT_CLOSED_RETRYING', params: { url: 'ws://127.0.0.1:3001' } }, 'The connection to ws://127.0.0.1:3001 closed.', '与 ws://127.0.0.1:3001 的连接已断开。'],
  [{ code: 'ONEBOT_CANNOT_REACH', params: { url: 'ws://127.0.0.1:3001', reason: 'ETIMEDOUT' } }, 'Cannot reach ws://127.0.0.1:3001: timed out (ETIMEDOUT).', '连不上 ws://127.0.0.1:3001：连接超时（ETIMEDOUT）。'],
  [{ code: 'ONEBOT_CANNOT_REACH', params: { url: 'ws://127.0.0.1:3001', reason: 'HTTP 502' } }, 'Cannot reach ws://127.0.0.1:3001: HTTP 502.', '连不上 ws://127.0.0.1:3001：HTTP 502。'],
  [{ code: 'ONEBOT_TOKEN_REJECTED', params: { status: 401 } }, 'The OneBot implementation rejected the access token (HTTP 401). Check "Access token".', 'OneBot 实现拒绝了访问令牌（HTTP 401）。请检查“访问令牌”。'],
  [
    { code: 'ONEBOT_TOKEN_REJECTED_STOPPED', params: { status: 403 } },
    'The OneBot implementation rejected the access token (HTTP 403). Check "Access token"; no new tries until it changes.',
    'OneBot 实现拒绝了访问令牌（HTTP 403）。请检查“访问令牌”；改好之前不再重试。',
  ],
  [{ code: 'ONEBOT_NOT_CONNECTED' }, 'Not connected to the OneBot implementation (NapCat, Lagrange …).', '没有连接到 OneBot 实现（NapCat、Lagrange 等）。'],
  [{ code: 'ONEBOT_NO_ANSWER', params: { action: 'get_login_info' } }, 'OneBot did not answer get_login_info in time.', 'OneBot 没有及时回应 get_login_info。'],
  [{ code: 'ONEBOT_ACTION_FAILED', params: { action: 'get_login_info', retcode: 1400, message: 'not logged in' } }, 'OneBot get_login_info failed (retcode 1400): not logged in', 'OneBot get_login_info 失败（retcode 1400）：not logged in'],
  [{ code: 'ONEBOT_ACTION_FAILED', params: { action: 'send_msg', retcode: 100 } }, 'OneBot send_msg failed (retcode 100)', 'OneBot send_msg 失败（retcode 100）'],
  [
    { code: 'ONEBOT_REVERSE_NEEDS_TOKEN' },
    'The reverse WebSocket needs an access token: set "Access token" (and the same token in NapCat / Lagrange).',
    '反向 WebSocket 需要访问令牌：请设置“访问令牌”（NapCat / Lagrange 里填同一个）。',
  ],
  [
    { code: 'ONEBOT_REVERSE_SHORT_TOKEN', params: { host: '0.0.0.0', min: 16 } },
    'Listening on 0.0.0.0 lets other machines connect: the access token must then be at least 16 characters (a long random one, the same in NapCat / Lagrange), or keep "Listen address (reverse)" at 127.0.0.1.',
    '在 0.0.0.0 上监听会让其他机器也能连接：访问令牌至少要 16 个字符（用一个很长的随机令牌，NapCat / Lagrange 里填同一个），或者把“监听地址（反向）”保持为 127.0.0.1。',
  ],
  [{ code: 'ONEBOT_LISTEN_FAILED', params: { host: '127.0.0.1', port: 8766, reason: 'EADDRINUSE' } }, 'Cannot listen on 127.0.0.1:8766: the port is in use (EADDRINUSE).', '无法在 127.0.0.1:8766 监听：端口已被占用（EADDRINUSE）。'],
  [{ code: 'ONEBOT_LISTENING', params: { url: 'ws://127.0.0.1:8766/onebot/v11/ws', open: false } }, 'Waiting for NapCat / Lagrange to connect to ws://127.0.0.1:8766/onebot/v11/ws', '等待 NapCat / Lagrange 连接到 ws://127.0.0.1:8766/onebot/v11/ws'],
  [
    { code: 'ONEBOT_LISTENING', params: { url: 'ws://0.0.0.0:8766/ws', open: true } },
    'Waiting for NapCat / Lagrange to connect to ws://0.0.0.0:8766/ws (other machines can reach it: only the access token keeps them out)',
    '等待 NapCat / Lagrange 连接到 ws://0.0.0.0:8766/ws（其他机器也能访问：只有访问令牌能挡住它们）',
  ],
  [{ code: 'ONEBOT_DISCONNECTED', params: { url: 'ws://127.0.0.1:8766/ws' } }, 'The OneBot implementation disconnected; waiting for it at ws://127.0.0.1:8766/ws', 'OneBot 实现已断开；在 ws://127.0.0.1:8766/ws 等它重新连接'],
  [
    { code: 'ONEBOT_REVERSE_WAITING', params: { url: 'ws://127.0.0.1:8766/ws' } },
    "No OneBot implementation is connected: point NapCat / Lagrange's reverse WebSocket at ws://127.0.0.1:8766/ws with the same access token.",
    '还没有 OneBot 实现连上来：请把 NapCat / Lagrange 的反向 WebSocket 指向 ws://127.0.0.1:8766/ws，并使用同一个访问令牌。',
  ],
  [
    { code: 'ONEBOT_REVERSE_WAITING' },
    "No OneBot implementation is connected: point NapCat / Lagrange's reverse WebSocket at the address in these settings with the same access token.",
    '还没有 OneBot 实现连上来：请把 NapCat / Lagrange 的反向 WebSocket 指向 这里设置的地址，并使用同一个访问令牌。',
  ],
];

describe("a channel's state and test result in the page's language (decision 0680)", () => {
  it.each(CASES)('%j', (words, en, zh) => {
    expect(channelSentence('en', words, 'FALLBACK')).toBe(en);
    expect(channelSentence('zh', words, 'FALLBACK')).toBe(zh);
  });

  it('a code the page does not know, or none, is the daemon’s English', () => {
    expect(channelSentence('zh', { code: 'SOMETHING_NEW', params: { x: 1 } }, 'something new happened')).toBe('something new happened');
    expect(channelSentence('zh', undefined, 'stopped')).toBe('stopped');
  });

  it('a network error number is a short phrase with the code in brackets; an unknown reason stays as it came', () => {
    expect(reasonPhrase('zh', 'ENOTFOUND')).toBe('找不到这个域名（DNS）（ENOTFOUND）');
    expect(reasonPhrase('en', 'ENOTFOUND')).toBe('no such host name (DNS) (ENOTFOUND)');
    expect(reasonPhrase('zh', 'timed out')).toBe('超时');
    expect(reasonPhrase('zh', 'HTTP 200 without a Bot API answer')).toBe('HTTP 200 without a Bot API answer');
    expect(reasonPhrase('zh', 'constructor')).toBe('constructor');
  });
});

describe('"retrying in N s" counts down to the attempt', () => {
  const at = 1_000_000;
  it('whole seconds, rounded up, never below zero', () => {
    expect(secondsLeft(at, at - 7000)).toBe(7);
    expect(secondsLeft(at, at - 6200)).toBe(7);
    expect(secondsLeft(at, at - 1)).toBe(1);
    expect(secondsLeft(at, at + 5000)).toBe(0);
  });
  it('in both languages, and "retrying now…" once it is due', () => {
    expect(retryPhrase('en', at, at - 7000)).toBe('Retrying in 7 s');
    expect(retryPhrase('zh', at, at - 7000)).toBe('7 秒后重试');
    expect(retryPhrase('en', at, at - 3000)).toBe('Retrying in 3 s');
    expect(retryPhrase('zh', at, at - 3000)).toBe('3 秒后重试');
    expect(retryPhrase('en', at, at)).toBe('Retrying now…');
    expect(retryPhrase('zh', at, at + 2000)).toBe('正在重试…');
  });
});
