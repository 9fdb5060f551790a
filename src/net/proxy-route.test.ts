import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envProxyProblem, isLocalDestination, noProxyMatches, proxyRoute, proxyUrlProblem } from './index.js';

test('proxy URLs: http(s) with host and port, optional login; SOCKS, paths and garbage are refused with a reason', () => {
  for (const ok of ['', 'http://127.0.0.1:7890', 'https://proxy.corp:8443', 'http://user:p%40ss@10.0.0.2:3128', 'http://[::1]:7890/']) assert.equal(proxyUrlProblem(ok), undefined, ok);
  assert.match(proxyUrlProblem('127.0.0.1:7890') ?? '', /http:\/\/ or https:\/\/ URL/);
  assert.match(proxyUrlProblem('socks5://127.0.0.1:7891') ?? '', /SOCKS proxy is not supported/);
  assert.match(proxyUrlProblem('http://127.0.0.1:7890/pac') ?? '', /no path/);
  assert.match(proxyUrlProblem('not a url') ?? '', /http:\/\/ or https:\/\/ URL/);
  assert.match(envProxyProblem({ HTTPS_PROXY: 'socks5://x:1' }) ?? '', /^HTTPS_PROXY is not used: a SOCKS proxy/);
});

test('local destinations: loopback names and addresses, private and link-local addresses', () => {
  for (const h of ['localhost', 'api.localhost', '127.0.0.1', '127.1.2.3', '[::1]', '10.1.2.3', '192.168.1.5', '172.20.0.1', '169.254.1.1', '[fd00::1]', '[::ffff:127.0.0.1]']) assert.equal(isLocalDestination(h), true, h);
  for (const h of ['api.telegram.org', '8.8.8.8', '172.32.0.1', '[2001:db8::1]', 'localhost.example.com']) assert.equal(isLocalDestination(h), false, h);
});

test('NO_PROXY as curl reads it', () => {
  assert.equal(noProxyMatches('example.com', 'api.example.com', '443'), true);
  assert.equal(noProxyMatches('.example.com', 'example.com', '443'), true);
  assert.equal(noProxyMatches('*.example.com', 'a.example.com', '443'), true);
  assert.equal(noProxyMatches('example.com:8080', 'example.com', '443'), false);
  assert.equal(noProxyMatches('example.com:8080', 'example.com', '8080'), true);
  assert.equal(noProxyMatches('other.org, *', 'x.y', '80'), true);
  assert.equal(noProxyMatches('ample.com', 'example.com', '443'), false);
});

test('the route: the setting wins over the environment; https and http destinations read their own variable', () => {
  const env = { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://p:2' };
  const route = (u: string, setting = '', e: Record<string, string> = env) => proxyRoute(new URL(u), { setting, env: e })?.url.host;
  assert.equal(route('https://api.openai.com/v1'), 's:1');
  assert.equal(route('http://api.example.com/'), 'p:2');
  assert.equal(route('https://api.openai.com/v1', 'http://mine:3'), 'mine:3');
  assert.equal(route('https://api.openai.com/v1', 'direct'), undefined);
  assert.equal(route('http://127.0.0.1:11434/api/tags', 'http://mine:3'), undefined);
  assert.equal(route('https://api.openai.com/v1', '', { HTTP_PROXY: 'http://p:2' }), 'p:2');
  assert.equal(route('https://api.openai.com/v1', '', { HTTPS_PROXY: 'socks5://x:1' }), undefined);
});
