/**
 * NIMBUS_METRICS_ALLOW: the addresses whose connections may read /metrics without a key
 * (docs/metrics.md, "Who may scrape"). Empty by default, loopback included: behind a reverse
 * proxy on the same machine (nginx in front of the daemons, the way cluster mode runs) every
 * request arrives from 127.0.0.1, so allowing loopback by default would hand the metrics to
 * anyone the proxy serves. Only the connection's own address counts, never X-Forwarded-For,
 * which any client can write.
 */
import { BlockList, isIP } from 'node:net';

/** The entries of a comma-separated list of addresses and CIDR ranges (`10.0.0.7, 10.1.0.0/16, fd00::/8`), each checked; a wrong one stops the start. */
export function parseAddressList(raw: string, name: string): string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (rangeOf(entry) === null)
      throw new Error(`Invalid ${name}: ${JSON.stringify(entry)} is not an IP address or a CIDR range (such as 10.0.0.7 or 10.1.0.0/16)`);
  }
  return entries;
}

/** An entry as BlockList takes it: an address with its family and prefix length; null when it is neither an address nor a range. */
function rangeOf(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return null;
  const bits = version === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(bits) : entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return null;
  return { address, prefix: Number(prefixText), family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Whether a connection's remote address is in the list. An IPv4 client of a dual-stack socket
 * shows as `::ffff:10.0.0.7`; BlockList matches that against IPv4 ranges too.
 */
export function addressMatcher(entries: readonly string[]): (address: string | undefined) => boolean {
  if (entries.length === 0) return () => false;
  const allowed = new BlockList();
  for (const entry of entries) {
    const range = rangeOf(entry);
    if (range) allowed.addSubnet(range.address, range.prefix, range.family);
  }
  return (address) => {
    if (!address) return false;
    const version = isIP(address);
    return version !== 0 && allowed.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}
