// A duration as Flux, kubectl and Go's time.ParseDuration spell it (`5s`, `2m`, `1h30m`, `500ms`), or a bare
// number of seconds as groundcrew took before; anything else is refused with one line.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or an Error naming the value and the forms accepted. */
export function parseDuration(text: string): number {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return checked(Number(t) * 1000, text);
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(t)) throw badDuration(text);
  let ms = 0;
  for (const [, n, , unit] of t.matchAll(/(\d+(\.\d+)?)(ms|s|m|h)/g)) ms += Number(n) * (UNIT_MS[unit as string] as number);
  return checked(ms, text);
}

function checked(ms: number, text: string): number {
  if (!Number.isFinite(ms) || ms <= 0) throw badDuration(text);
  return Math.round(ms);
}

const badDuration = (text: string) =>
  new Error(`"${text.slice(0, 40)}" is not a duration: give seconds (30) or a duration such as 500ms, 5s, 2m, 1h30m`);
