import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProxyError } from '../spec/index.js';
import { OutboundFetch } from './index.js';
import { startConnectProxy, type ConnectProxy } from './__fixtures__/connect-proxy.js';

/** A port nothing listens on (a server opened and closed again). */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('OutboundFetch: requests to the internet through the proxy, local ones direct', () => {
  let api: Server;
  let port: number;
  let proxy: ConnectProxy;
  // A name that resolves nowhere: only the proxy knows where it is, so an answer proves the request went through it.
  let remote: string;

  before(async () => {
    api = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url, host: req.headers.host })));
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    port = (api.address() as AddressInfo).port;
    remote = `http://api.example.invalid:${port}`;
    proxy = await startConnectProxy({ routes: { [`api.example.invalid:${port}`]: `127.0.0.1:${port}` } });
  });
  after(async () => {
    await proxy.close();
    await new Promise<void>((r) => api.close(() => r()));
  });

  it('with the setting, a request to a name on the internet goes through one tunnel to the host:port it names', async () => {
    const net = new OutboundFetch({ setting: () => proxy.url, env: {} });
    const before = proxy.tunnels();
    const res = await net.fetch(`${remote}/v1/models`, { method: 'POST', body: 'x' });
    assert.deepEqual(await res.json(), { path: '/v1/models', host: `api.example.invalid:${port}` });
    assert.equal(proxy.tunnels(), before + 1);
    assert.equal(proxy.asked.at(-1), `api.example.invalid:${port}`);
    assert.equal(net.proxyFor(remote), proxy.url);
    await net.close();
  });

  it('without a proxy the same request is sent directly (and the name resolves nowhere)', async () => {
    const net = new OutboundFetch({ setting: () => '', env: {} });
    const asked = proxy.asked.length;
    await assert.rejects(net.fetch(`${remote}/v1/models`), (e: Error) => !(e instanceof ProxyError));
    assert.equal(proxy.asked.length, asked);
    assert.equal(net.proxyFor(remote), undefined);
  });

  it('loopback destinations never go through the proxy', async () => {
    const net = new OutboundFetch({ setting: () => proxy.url, env: {} });
    const asked = proxy.asked.length;
    for (const host of ['127.0.0.1', 'localhost']) assert.equal((await net.fetch(`http://${host}:${port}/local`)).status, 200);
    assert.equal(proxy.asked.length, asked);
    await net.close();
  });

  it('HTTP_PROXY / HTTPS_PROXY are followed when the setting is empty; NO_PROXY, "direct" and the setting win over them', async () => {
    const env = { HTTP_PROXY: proxy.url };
    const viaEnv = new OutboundFetch({ setting: () => '', env });
    let asked = proxy.asked.length;
    assert.equal((await viaEnv.fetch(`${remote}/env`)).status, 200);
    assert.equal(proxy.asked.length, asked + 1);
    await viaEnv.close();

    asked = proxy.asked.length;
    const exempt = new OutboundFetch({ setting: () => '', env: { ...env, NO_PROXY: '.example.invalid' } });
    await assert.rejects(exempt.fetch(`${remote}/env`));
    assert.equal(proxy.asked.length, asked);
    const direct = new OutboundFetch({ setting: () => 'direct', env });
    await assert.rejects(direct.fetch(`${remote}/env`));
    assert.equal(proxy.asked.length, asked);

    const dead = await deadPort();
    const settingWins = new OutboundFetch({ setting: () => proxy.url, env: { HTTP_PROXY: `http://127.0.0.1:${dead}` } });
    assert.equal((await settingWins.fetch(`${remote}/setting`)).status, 200);
    assert.equal(proxy.asked.length, asked + 1);
    await settingWins.close();
  });

  it('the proxy gets the user and password of its URL, and no message shows the password', async () => {
    const net = new OutboundFetch({ setting: () => `http://me:s3cret@127.0.0.1:${proxy.port}`, env: {} });
    assert.equal((await net.fetch(`${remote}/auth`)).status, 200);
    assert.equal(proxy.auth.at(-1), `Basic ${Buffer.from('me:s3cret').toString('base64')}`);
    assert.equal(net.proxyFor(remote), `http://me:***@127.0.0.1:${proxy.port}`);
    await net.close();
  });

  it('an unreachable proxy is named in the error (PROXY_UNREACHABLE), not the destination alone', async () => {
    const dead = await deadPort();
    const net = new OutboundFetch({ setting: () => `http://u:pw@127.0.0.1:${dead}`, env: {} });
    await assert.rejects(net.fetch(`${remote}/bot123:SECRET/getMe`), (e: ProxyError) => {
      assert.ok(e instanceof ProxyError);
      assert.equal(e.code, 'PROXY_UNREACHABLE');
      assert.match(e.message, new RegExp(`the proxy http://u:\\*\\*\\*@127\\.0\\.0\\.1:${dead} could not be reached \\(ECONNREFUSED\\) on the way to api\\.example\\.invalid:${port}`));
      assert.doesNotMatch(e.message, /SECRET|pw/);
      return true;
    });
    await net.close();
  });

  it('a proxy that refuses the tunnel says so with its status (PROXY_TUNNEL_REFUSED)', async () => {
    const refusing = await startConnectProxy({ refuseWith: 502 });
    const net = new OutboundFetch({ setting: () => refusing.url, env: {} });
    await assert.rejects(net.fetch(`${remote}/x`), (e: ProxyError) => {
      assert.equal(e.code, 'PROXY_TUNNEL_REFUSED');
      assert.match(e.message, new RegExp(`the proxy ${refusing.url.replace(/\./g, '\\.')} refused to open a tunnel to api\\.example\\.invalid:${port} \\(HTTP 502\\)`));
      return true;
    });
    assert.deepEqual(refusing.asked, [`api.example.invalid:${port}`]);
    await net.close();
    await refusing.close();
  });
});
