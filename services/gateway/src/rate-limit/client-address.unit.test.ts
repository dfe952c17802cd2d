import { describe, expect, it } from '@jest/globals';

import { clientKey } from './client-address.js';

describe('clientKey', () => {
  it('counts IPv6 clients per /64', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:db8:1:2:ffff:1:2:3'));
    expect(clientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
  });

  it('counts an IPv4-mapped address as the IPv4 address, and anything unreadable as one client', () => {
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey(undefined)).toBe('unknown');
    expect(clientKey('not an address')).toBe('unknown');
  });
});
