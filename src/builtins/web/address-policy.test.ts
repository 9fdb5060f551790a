import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AddressPolicy, embeddedIPv4, isPublicAddress } from './address-policy.js';

test('public and non-public addresses, IPv4 and IPv6, including IPv4 carried inside IPv6', () => {
  for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(ip), true, ip);
  for (const ip of [
    '127.0.0.1',
    '127.8.9.10',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '192.0.2.5',
    '198.18.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '[::1]',
    'fe80::1',
    'fd12:3456::1',
    'fc00::1',
    'ff02::1',
    '2001:db8::1',
    '2001::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:192.168.0.1',
    '::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    '2002:c0a8:0101::1',
    'not-an-ip',
  ])
    assert.equal(isPublicAddress(ip), false, ip);
  assert.equal(embeddedIPv4('::ffff:7f00:1'), '127.0.0.1');
  assert.equal(embeddedIPv4('64:ff9b::a9fe:a9fe'), '169.254.169.254');
  assert.equal(embeddedIPv4('2002:c0a8:0101::1'), '192.168.1.1');
  assert.equal(embeddedIPv4('2606:4700::1'), undefined);
});

test('the owner allows single addresses or ranges; the daemon\'s own port stays refused', () => {
  const p = new AddressPolicy(['192.168.1.20', '10.0.0.0/8', 'fd00::/8'], () => [8765]);
  assert.equal(p.refusal('192.168.1.20', 80), undefined);
  assert.match(p.refusal('192.168.1.21', 80) ?? '', /not a public internet address/);
  assert.equal(p.refusal('10.200.3.4', 8080), undefined);
  assert.equal(p.refusal('fd00::5', 80), undefined);
  assert.equal(p.refusal('8.8.8.8', 443), undefined);
  assert.match(p.refusal('127.0.0.1', 80) ?? '', /allow_private/);
  const loop = new AddressPolicy(['127.0.0.0/8'], () => [8765]);
  assert.equal(loop.refusal('127.0.0.1', 3000), undefined);
  assert.equal(loop.refusal('::ffff:127.0.0.1', 3000), undefined, 'a mapped form of an allowed address is allowed');
  assert.match(loop.refusal('127.0.0.1', 8765) ?? '', /own HTTP server/);
  assert.match(loop.refusal('0.0.0.0', 8765) ?? '', /own HTTP server/);
  assert.throws(() => new AddressPolicy(['localhost']), /not an IP address/);
  assert.throws(() => new AddressPolicy(['10.0.0.0/40']), /prefix length/);
  assert.equal(AddressPolicy.validEntry('10.0.0.0/8'), true);
  assert.equal(AddressPolicy.validEntry('*'), false);
});
