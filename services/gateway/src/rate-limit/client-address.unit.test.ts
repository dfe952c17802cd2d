import { describe, expect, it } from '@jest/globals';

import ipaddr from 'ipaddr.js';

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

  it('gives an IPv4 address the key ipaddr.js reads from it, canonical or not', () => {
    const viaIpaddr = (address: string) =>
      ipaddr.isValid(address) ? ipaddr.parse(address).toString() : 'unknown';
    for (const address of ['0.0.0.0', '9.10.99.100', '199.249.250.255', '255.255.255.255', '127.0.0.1']) {
      expect(clientKey(address)).toBe(address);
      expect(clientKey(address)).toBe(viaIpaddr(address));
    }
    // Not canonical: leading zeros, out of range, too few parts. Each is judged by ipaddr.js.
    for (const address of ['01.2.3.4', '1.2.3.04', '256.1.1.1', '1.2.3', '1.2.3.4.5', ' 1.2.3.4']) {
      expect(clientKey(address)).toBe(viaIpaddr(address));
    }
  });
});
