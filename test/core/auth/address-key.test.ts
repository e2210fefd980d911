import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { addressKeyOf } from '../../../core/auth/address-key';

/** What ipaddr.js alone makes of an IPv4 address: the key before the plain-IPv4 shortcut. */
function parsedKey(address: string): string {
  return ipaddr.isValid(address) ? ipaddr.process(address).toString() : address;
}

describe('addressKeyOf', () => {
  it('keys an IPv4 address as ipaddr.js writes it, written plainly or not', () => {
    const octet = fc.oneof(
      fc.integer({ min: 0, max: 255 }).map(String),
      // Leading zeros, out-of-range and odd forms: left to ipaddr.js.
      fc.integer({ min: 0, max: 999 }).map((n) => `0${n}`),
      fc.integer({ min: 256, max: 9999 }).map(String),
      fc.constantFrom('', '0x1f', ' 1', '1 '),
    );
    fc.assert(
      fc.property(fc.array(octet, { minLength: 1, maxLength: 5 }), (octets) => {
        const address = octets.join('.');
        expect(addressKeyOf(address)).toBe(parsedKey(address));
      }),
      { numRuns: 5000 },
    );
  });

  it('keys the same client the same in every form it may come as', () => {
    expect(addressKeyOf('198.51.100.7')).toBe('198.51.100.7');
    expect(addressKeyOf('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressKeyOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKeyOf('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKeyOf('/run/shortlink.sock')).toBe('/run/shortlink.sock');
  });
});
