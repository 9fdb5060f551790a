import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkApiRequest } from './auth.js';

const req = (path: string, origin: string) => new Request(`http://127.0.0.1:8765${path}`, { method: 'POST', headers: { origin, authorization: 'Bearer t', 'content-type': 'application/json' } });

test('a cross-site refusal on /v1 or /mcp says how to allow a chat app (without echoing the origins already allowed); on /api it does not', () => {
  const v1 = checkApiRequest(req('/v1/chat/completions', 'http://localhost:3210'), '/v1/chat/completions', 't', ['http://secret-app.example']);
  assert.equal(v1?.code, 'CROSS_SITE_REQUEST');
  assert.match(v1!.message, /list its origin in plugin\.webui\.app_origins .*'\["http:\/\/localhost:3210"\]'/);
  assert.doesNotMatch(v1!.message, /secret-app/);
  const mcp = checkApiRequest(req('/mcp', 'http://localhost:3210'), '/mcp', 't');
  assert.match(mcp!.message, /app_origins/);
  const api = checkApiRequest(req('/api/v1/settings/x', 'http://localhost:3210'), '/api/v1/settings/x', 't', ['http://localhost:3210']);
  assert.equal(api?.code, 'CROSS_SITE_REQUEST', 'the WebUI API is never opened to an app');
  assert.doesNotMatch(api!.message, /app_origins/);
  assert.equal(checkApiRequest(req('/v1/models', 'http://localhost:3210'), '/v1/models', 't', ['http://localhost:3210']), undefined);
});
