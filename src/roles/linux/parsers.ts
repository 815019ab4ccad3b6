// Parsers of what Linux tools print, tested against captured output (test/fixtures/linux/).

export interface LinkState {
  name: string;
  up: boolean;
}

/** `ip -j link show`: each interface and whether it is administratively up. Unreadable output is no interfaces. */
export function parseIpLinks(json: string): LinkState[] {
  let links: unknown;
  try {
    links = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(links)) return [];
  return links
    .filter(
      (l): l is { ifname: string; flags?: string[] } =>
        typeof l === 'object' && l !== null && typeof (l as { ifname?: unknown }).ifname === 'string',
    )
    .map((l) => ({ name: l.ifname, up: (l.flags ?? []).includes('UP') }));
}
