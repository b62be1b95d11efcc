/**
 * Where an escalation may POST (issue #11). Decided per resolved IP address, at connect time (the
 * check runs inside the socket's DNS lookup, so a name that resolves to an allowed address for
 * the check and a refused one for the connection — DNS rebinding — cannot slip through).
 *
 * Refused, and why:
 * - link-local, 169.254.0.0/16 and fe80::/10: the cloud metadata service (169.254.169.254 hands
 *   out the machine's cloud credentials) and other on-link services nobody posts chore results to;
 * - unspecified, 0.0.0.0/8 and `::`: "this host" on any interface, an SSRF spelling of loopback;
 * - multicast and broadcast, 224.0.0.0/4, 240.0.0.0/4 (reserved, incl. 255.255.255.255) and ff00::/8:
 *   never an HTTP endpoint;
 * - the same addresses written as IPv4-mapped (`::ffff:169.254.169.254`) or NAT64 (`64:ff9b::…`) IPv6.
 * Allowed: loopback (a local hook or a local relay is a common, legitimate target, and the
 * person sees the URL before enabling the chore) and private LAN ranges (self-hosted chat and CI
 * live there). Redirects are never followed: a 3xx answer is a failure naming the status, so an
 * allowed host cannot bounce the payload somewhere else.
 */
import { isIP } from 'node:net';

/** Why posting to `address` (an IP literal) is refused, or undefined when it is allowed. */
export function addressProblem(address: string): string | undefined {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return ipv4Problem(ip);
  if (family === 6) return ipv6Problem(ip);
  return `${address} is not an IP address`;
}

function ipv4Problem(ip: string): string | undefined {
  const [a, b] = ip.split('.').map(Number);
  if (a === 169 && b === 254) return `${ip} is link-local (169.254.0.0/16, where cloud metadata services answer)`;
  if (a === 0) return `${ip} is an unspecified address (0.0.0.0/8)`;
  if (a >= 224) return `${ip} is multicast, reserved or broadcast`;
  return undefined;
}

function ipv6Problem(ip: string): string | undefined {
  const groups = expandIpv6(ip);
  if (!groups) return `${ip} is not an IPv6 address`;
  const first = groups[0];
  if (groups.every((g) => g === 0)) return `${ip} is the unspecified address (::)`;
  if ((first & 0xffc0) === 0xfe80) return `${ip} is link-local (fe80::/10)`;
  if ((first & 0xff00) === 0xff00) return `${ip} is multicast (ff00::/8)`;
  // IPv4-mapped ::ffff:a.b.c.d and NAT64 64:ff9b::a.b.c.d carry an IPv4 address: judge that one.
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (mapped || nat64) {
    const v4 = `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}`;
    const inner = ipv4Problem(v4);
    return inner ? `${ip} maps to ${inner}` : undefined;
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function expandIpv6(ip: string): number[] | undefined {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...new Array<number>(Math.max(0, fill)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}
